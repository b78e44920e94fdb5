package io.github.relock.docs;

import org.springframework.stereotype.Service;

import io.github.relock.spring.DistributedLock;

/** The getting-started service: one shipment per order at a time, across every instance. */
@Service
public class ShippingService {

    private final LabelPrinter labels;

    public ShippingService(LabelPrinter labels) {
        this.labels = labels;
    }

    // tag::quick-start[]
    @DistributedLock(name = "shipping", key = "#order.id")   // Redis key lock:{shipping:42}
    public Shipment ship(Order order) {
        // one call at a time per order, across every instance; another call on the same
        // order waits up to relock.locks.shipping.wait-time, then gets LockNotAcquiredException
        String label = labels.print(order);                  // annotated too, same key: re-enters
        return new Shipment(order.id(), label);
    }
    // end::quick-start[]

    /** An order, as far as shipping needs it. */
    public record Order(long id) {
    }

    /** What {@link #ship(Order)} answers. */
    public record Shipment(long orderId, String label) {
    }
}
