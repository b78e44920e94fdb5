package io.github.relock.sample.payments;

/**
 * The lock that guards paying an order. {@code @DistributedLock(name = "payments", key = "#order.id")}
 * names it {@code payments:<order id>} (name, colon, key), and its Redis key is
 * {@code lock:{payments:<order id>}}.
 */
public final class PaymentLocks {

    /** The logical lock name; {@code relock.locks.payments.*} in application.yml tunes it. */
    public static final String NAME = "payments";

    private PaymentLocks() {
    }

    /** The name of the lock on one order, as the starter forms it. */
    public static String of(long orderId) {
        return NAME + ":" + orderId;
    }
}
