package io.github.relock.sample.reactive.orders;

/** No order has that id. */
public class OrderNotFoundException extends RuntimeException {

    private final long orderId;

    public OrderNotFoundException(long orderId) {
        super("There is no order " + orderId + "; create one with POST /orders.");
        this.orderId = orderId;
    }

    public long getOrderId() {
        return orderId;
    }
}
