package io.github.relock.sample.orders;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * One payment of an order. There must never be two for one order; the database does not enforce that
 * (no unique constraint on {@code order_id}, on purpose), the lock does.
 *
 * @param id           the payment id
 * @param orderId      the order it paid
 * @param amount       what was charged
 * @param fencingToken the fencing token of the lock hold it was written under: it only grows per order
 * @param paidBy       the lock client id of the instance that took the payment
 * @param paidAt       when it was recorded
 */
public record Payment(long id, long orderId, BigDecimal amount, long fencingToken, String paidBy, Instant paidAt) {
}
