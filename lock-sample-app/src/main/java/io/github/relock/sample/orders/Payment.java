package io.github.relock.sample.orders;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * One payment of an order. There is never a second one for an order: the lock lets one payment at a time
 * decide, the fenced write of the order refuses a payment whose lease ran out, and {@code payments.order_id} is
 * unique in the database.
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
