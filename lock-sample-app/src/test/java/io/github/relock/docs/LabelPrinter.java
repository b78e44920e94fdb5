package io.github.relock.docs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Service;

import io.github.relock.spring.DistributedLock;

/** Prints shipping labels under the order's shipping lock, which {@link ShippingService} re-enters. */
@Service
public class LabelPrinter {

    private final Map<Long, Integer> printed = new ConcurrentHashMap<>();

    // tag::nested[]
    @DistributedLock(name = "shipping", key = "#order.id")   // called from ship(): hold count 2, no round trip
    public String print(ShippingService.Order order) {
        return "SHIP-" + order.id() + "-" + printed.merge(order.id(), 1, Integer::sum);
    }
    // end::nested[]
}
