package io.github.relock.sample.reactive.orders;

/** A payment that got the order's lock found the order paid already: nothing was charged. */
public class OrderAlreadyPaidException extends RuntimeException {

    private final long chargeId;

    public OrderAlreadyPaidException(long orderId, long chargeId) {
        super("Order " + orderId + " is already paid (charge " + chargeId + ")");
        this.chargeId = chargeId;
    }

    /** The charge that paid it. */
    public long getChargeId() {
        return chargeId;
    }
}
