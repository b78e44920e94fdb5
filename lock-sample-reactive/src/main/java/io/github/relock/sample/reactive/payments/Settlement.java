package io.github.relock.sample.reactive.payments;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

import io.github.relock.sample.reactive.orders.Charge;
import io.github.relock.sample.reactive.orders.OrderStore;
import io.github.relock.spring.CurrentLock;
import io.github.relock.spring.DistributedLock;
import reactor.core.publisher.Mono;

/**
 * Marks an order paid. Locked on the same key as {@link PaymentService#pay}: subscribed on its own it takes the
 * order's lock; subscribed inside {@code pay()}'s publisher it <em>re-enters</em> that lock (hold count 2),
 * because the lock owner travels in the Reactor Context of the subscription chain, not in a thread.
 */
@Service
public class Settlement {

    private static final Logger log = LoggerFactory.getLogger(Settlement.class);

    private final OrderStore orders;

    public Settlement(OrderStore orders) {
        this.orders = orders;
    }

    /** Marks the order paid by {@code charge}; emits the hold count of the order's lock while it ran. */
    @DistributedLock(name = PaymentService.LOCK, key = "#orderId")
    public Mono<Integer> settle(long orderId, Charge charge) {
        return CurrentLock.mono().flatMap(held -> {
            log.info("Settling order {} with charge {}: lock {} {}, hold count {}", orderId, charge.id(), held.name(),
                    held.holdCount() > 1 ? "re-entered by the nested Mono" : "taken", held.holdCount());
            return orders.markPaid(orderId).thenReturn(held.holdCount());
        });
    }
}
