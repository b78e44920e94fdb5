package io.github.relock.sample.orders;

/** No order with this id. */
public class OrderNotFoundException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long orderId;

    public OrderNotFoundException(long orderId) {
        super("There is no order " + orderId);
        this.orderId = orderId;
    }

    public long getOrderId() {
        return orderId;
    }
}
