package io.github.relock.sample.reactive.payments;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.HeldLock;
import io.github.relock.sample.reactive.orders.Order;
import io.github.relock.sample.reactive.orders.OrderAlreadyPaidException;
import io.github.relock.sample.reactive.orders.OrderNotFoundException;
import io.github.relock.sample.reactive.orders.OrderStore;
import io.github.relock.spring.CurrentLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockNotAcquiredException;
import reactor.core.publisher.Mono;

/**
 * Pays orders, one charge per order across every instance. The lock is taken when the returned {@code Mono} is
 * subscribed (without blocking a thread) and given back when it completes, fails or is cancelled; the receipt
 * reaches the caller after the release. Everything that decides whether to charge happens inside the lock.
 *
 * <p>Wait and lease: {@code relock.locks.payments.*} in {@code application.yml}.
 */
@Service
public class PaymentService {

    /** The lock name: {@code payments:<order id>}, Redis key {@code lock:{payments:<order id>}}. */
    public static final String LOCK = "payments";

    private static final Logger log = LoggerFactory.getLogger(PaymentService.class);

    private final OrderStore orders;
    private final CardProcessor cards;
    private final Settlement settlement;
    private final DistributedLockClient locks;

    public PaymentService(OrderStore orders, CardProcessor cards, Settlement settlement, DistributedLockClient locks) {
        this.orders = orders;
        this.cards = cards;
        this.settlement = settlement;
        this.locks = locks;
    }

    /**
     * Pays the order; the card processor takes {@code extraDelay} longer than usual. Fails with
     * {@link OrderAlreadyPaidException}, {@link OrderNotFoundException}, or {@link LockNotAcquiredException} if
     * another payment of the order held the lock for the whole wait time.
     */
    @DistributedLock(name = LOCK, key = "#orderId")
    public Mono<PaymentReceipt> pay(long orderId, Duration extraDelay) {
        return orders.find(orderId)
                .switchIfEmpty(Mono.error(() -> new OrderNotFoundException(orderId)))
                .flatMap(order -> order.isPaid() ? alreadyPaid(order) : charge(order, extraDelay));
    }

    private Mono<PaymentReceipt> charge(Order order, Duration extraDelay) {
        return CurrentLock.mono().flatMap(held -> { // this subscription's hold on payments:<order id>
            log.info("Paying order {} under lock {}: hold count {}, fencing token {}", order.id(), held.name(),
                    held.holdCount(), held.fencingToken());
            return cards.charge(order, held.fencingToken(), extraDelay)
                    // same lock key, subscribed inside this chain: re-enters instead of waiting for itself
                    .flatMap(charge -> settlement.settle(order.id(), charge)
                            .map(nested -> receipt(order, charge.id(), held, nested)));
        });
    }

    private PaymentReceipt receipt(Order order, long chargeId, HeldLock held, int nestedHoldCount) {
        log.info("Paid order {} with charge {}; lock {} is given back once this Mono completes", order.id(), chargeId,
                held.name());
        return new PaymentReceipt(order.id(), chargeId, order.amount(), held.name(), held.fencingToken(),
                held.holdCount(), nestedHoldCount, locks.getClientId());
    }

    private static Mono<PaymentReceipt> alreadyPaid(Order order) {
        long chargeId = order.charges().isEmpty() ? -1 : order.charges().get(0).id();
        log.info("Order {} is already paid (charge {}): nothing charged", order.id(), chargeId);
        return Mono.error(new OrderAlreadyPaidException(order.id(), chargeId));
    }
}
