package io.github.relock.sample.reactive.payments;

import java.time.Duration;

import org.springframework.stereotype.Component;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.sample.reactive.ReactiveSampleProperties;
import io.github.relock.sample.reactive.orders.Charge;
import io.github.relock.sample.reactive.orders.Order;
import io.github.relock.sample.reactive.orders.OrderStore;
import reactor.core.publisher.Mono;

/** A simulated card processor: it takes a while (a timer, no thread waits), then the charge is recorded. */
@Component
public class CardProcessor {

    private final OrderStore orders;
    private final DistributedLockClient locks;
    private final Duration delay;

    public CardProcessor(OrderStore orders, DistributedLockClient locks, ReactiveSampleProperties properties) {
        this.orders = orders;
        this.locks = locks;
        this.delay = properties.payment().providerDelay();
    }

    /** Charges the order's amount once, tagged with the fencing token of the hold it runs under. */
    public Mono<Charge> charge(Order order, long fencingToken, Duration extraDelay) {
        return Mono.delay(delay.plus(extraDelay)).then(orders.addCharge(order, fencingToken, locks.getClientId()));
    }
}
