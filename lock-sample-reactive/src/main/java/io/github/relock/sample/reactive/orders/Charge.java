package io.github.relock.sample.reactive.orders;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * One charge of a customer's card for an order.
 *
 * @param id           the charge's id
 * @param orderId      the order it pays
 * @param amount       what was charged
 * @param fencingToken the token of the lock hold it was made under
 * @param chargedBy    the lock client id of the instance that made it
 * @param chargedAt    when it was made
 */
public record Charge(long id, long orderId, BigDecimal amount, long fencingToken, String chargedBy, Instant chargedAt) {
}
