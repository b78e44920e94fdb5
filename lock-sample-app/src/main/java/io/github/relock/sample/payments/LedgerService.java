package io.github.relock.sample.payments;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import io.github.relock.core.HeldLock;
import io.github.relock.spring.CurrentLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.sample.orders.Order;
import io.github.relock.sample.orders.Payment;

/**
 * Books a payment in the ledger. Locked on the same key as {@link PaymentService#pay(Order)}: called on
 * its own it takes the order's lock; called from inside {@code pay()}, on the same thread, it
 * <em>re-enters</em> the lock {@code pay()} already holds (hold count 2) instead of waiting for itself.
 */
@Service
public class LedgerService {

    private static final Logger log = LoggerFactory.getLogger(LedgerService.class);

    private final JdbcClient jdbc;

    public LedgerService(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Writes the two ledger lines of a payment.
     *
     * @return the hold count of the order's lock while this ran
     */
    @DistributedLock(name = PaymentLocks.NAME, key = "#order.id")
    @Transactional(propagation = Propagation.MANDATORY)
    public int record(Order order, Payment payment) {
        HeldLock held = CurrentLock.get(); // inside pay(): the same hold and token, one level deeper
        int holdCount = held.holdCount();
        if (holdCount > 1) {
            log.info("Ledger for order {}: lock {} re-entered by the nested call, hold count {}", order.id(),
                    held.name(), holdCount);
        }
        else {
            log.info("Ledger for order {}: lock {} taken, hold count {}", order.id(), held.name(), holdCount);
        }
        jdbc.sql("INSERT INTO ledger_entries (order_id, payment_id, account, amount) VALUES (?, ?, ?, ?)")
                .params(order.id(), payment.id(), "receivable:" + order.customer(), payment.amount().negate())
                .update();
        jdbc.sql("INSERT INTO ledger_entries (order_id, payment_id, account, amount) VALUES (?, ?, ?, ?)")
                .params(order.id(), payment.id(), "revenue", payment.amount())
                .update();
        return holdCount;
    }
}
