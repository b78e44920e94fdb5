package io.github.relock.sample.payments;

/**
 * The lock that guards paying an order. {@code @DistributedLock(name = "payments", key = "#order.id")}
 * names it {@code payments:<order id>} (name, colon, key), and its Redis key is
 * {@code lock:{payments:<order id>}}. Code inside the lock reads its hold with
 * {@link io.github.relock.spring.CurrentLock#get()}.
 */
public final class PaymentLocks {

    /** The logical lock name; {@code relock.locks.payments.*} in application.yml tunes it. */
    public static final String NAME = "payments";

    private PaymentLocks() {
    }
}
