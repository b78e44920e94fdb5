package io.github.relock.sample.payments;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.HeldLock;
import io.github.relock.sample.orders.Order;
import io.github.relock.sample.orders.OrderNotFoundException;
import io.github.relock.sample.orders.OrderRepository;
import io.github.relock.sample.orders.Payment;
import io.github.relock.spring.CurrentLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockNotAcquiredException;

/**
 * Pays orders, one payment per order across every instance of the service.
 *
 * <p>{@code @DistributedLock} runs outside {@code @Transactional} (the starter's default advice order):
 * the lock is taken first, the transaction runs inside it, and the lock is released only after the
 * commit, so the next holder always reads the committed {@code PAID}. Everything that decides whether to
 * pay happens inside the lock: the order passed in was read before it and is only used for its id.
 *
 * <p>The lock alone cannot stop a payment whose lease ran out in a long pause (GC, a slow card processor) from
 * writing after the next holder: marking the order paid is therefore a write fenced by this hold's fencing token
 * ({@link CurrentLock}, {@code FencedJdbc}), which the database refuses once a later holder has written the order.
 * {@code payments.order_id} is unique as well: a second payment of one order fails, whatever happened to the lock.
 *
 * <p>Wait and lease times: {@code relock.locks.payments.*} in {@code application.yml}.
 */
@Service
public class PaymentService {

    private static final Logger log = LoggerFactory.getLogger(PaymentService.class);

    private final OrderRepository orders;
    private final PaymentGateway gateway;
    private final LedgerService ledger;
    private final RedisLockClient locks;

    public PaymentService(OrderRepository orders, PaymentGateway gateway, LedgerService ledger, RedisLockClient locks) {
        this.orders = orders;
        this.gateway = gateway;
        this.ledger = ledger;
        this.locks = locks;
    }

    /**
     * Pays the order.
     *
     * @throws OrderAlreadyPaidException if it was paid when this call got the lock
     * @throws LockNotAcquiredException  if another payment of this order held the lock for the whole wait time
     * @throws OrderNotFoundException    if there is no such order
     */
    @DistributedLock(name = PaymentLocks.NAME, key = "#order.id")
    @Transactional
    public PaymentReceipt pay(Order order) {
        return payUnderLock(order, Duration.ZERO);
    }

    /** {@link #pay(Order)}, with the card processor taking {@code extraDelay} longer than usual. */
    @DistributedLock(name = PaymentLocks.NAME, key = "#order.id")
    @Transactional
    public PaymentReceipt pay(Order order, Duration extraDelay) {
        return payUnderLock(order, extraDelay);
    }

    private PaymentReceipt payUnderLock(Order order, Duration extraDelay) {
        HeldLock held = CurrentLock.get(); // this call's hold on payments:<order id>
        Order current = orders.find(order.id()).orElseThrow(() -> new OrderNotFoundException(order.id()));
        if (current.isPaid()) {
            long paidBy = orders.payments(current.id()).stream().mapToLong(Payment::id).findFirst().orElse(-1);
            log.info("Order {} is already paid (payment {}): nothing charged", current.id(), paidBy);
            throw new OrderAlreadyPaidException(current.id(), paidBy);
        }
        log.info("Paying order {} under lock {}: hold count {}, fencing token {}, client {}", current.id(), held.name(),
                held.holdCount(), held.fencingToken(), locks.getClientId());
        gateway.charge(current, extraDelay);
        // fenced: refused (and the transaction rolled back) if a later holder of this lock wrote the order meanwhile
        orders.markPaid(current.id(), held.fencingToken());
        Payment payment = orders.insertPayment(current.id(), current.amount(), held.fencingToken(), locks.getClientId());
        int nestedHoldCount = ledger.record(current, payment); // same key, same thread: re-enters
        log.info("Paid order {}: payment {} of {}; lock {} back to hold count {} once the ledger call returned",
                current.id(), payment.id(), payment.amount(), held.name(), CurrentLock.get().holdCount());
        return new PaymentReceipt(current.id(), payment.id(), payment.amount(), held.name(), held.fencingToken(),
                held.holdCount(), nestedHoldCount, locks.getClientId(), CurrentThread.isVirtual());
    }
}
