package io.github.relock.sample.payments;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.sample.orders.Order;
import io.github.relock.sample.orders.OrderNotFoundException;
import io.github.relock.sample.orders.OrderRepository;
import io.github.relock.sample.orders.Payment;
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
        String lockName = PaymentLocks.of(order.id());
        ReentrantDistributedLock lock = locks.getLock(lockName);
        Order current = orders.find(order.id()).orElseThrow(() -> new OrderNotFoundException(order.id()));
        if (current.isPaid()) {
            long paidBy = orders.payments(current.id()).stream().mapToLong(Payment::id).findFirst().orElse(-1);
            log.info("Order {} is already paid (payment {}): nothing charged", current.id(), paidBy);
            throw new OrderAlreadyPaidException(current.id(), paidBy);
        }
        int holdCount = lock.getHoldCount();
        long fencingToken = lock.fencingToken();
        log.info("Paying order {} under lock {}: hold count {}, fencing token {}, client {}", current.id(), lockName,
                holdCount, fencingToken, locks.getClientId());
        gateway.charge(current, extraDelay);
        Payment payment = orders.insertPayment(current.id(), current.amount(), fencingToken, locks.getClientId());
        int nestedHoldCount = ledger.record(current, payment); // same key, same thread: re-enters
        orders.markPaid(current.id());
        log.info("Paid order {}: payment {} of {}; lock {} back to hold count {} once the ledger call returned",
                current.id(), payment.id(), payment.amount(), lockName, lock.getHoldCount());
        return new PaymentReceipt(current.id(), payment.id(), payment.amount(), lockName, fencingToken, holdCount,
                nestedHoldCount, locks.getClientId(), CurrentThread.isVirtual());
    }
}
