package io.github.relock.sample.payments;

/** The order was already paid when this payment got the lock: nothing was charged, nothing written. */
public class OrderAlreadyPaidException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long orderId;
    private final long paymentId;

    public OrderAlreadyPaidException(long orderId, long paymentId) {
        super("Order " + orderId + " is already paid (payment " + paymentId + ")");
        this.orderId = orderId;
        this.paymentId = paymentId;
    }

    public long getOrderId() {
        return orderId;
    }

    /** The payment that paid it. */
    public long getPaymentId() {
        return paymentId;
    }
}
