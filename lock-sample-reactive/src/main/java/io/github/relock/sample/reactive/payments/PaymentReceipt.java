package io.github.relock.sample.reactive.payments;

import java.math.BigDecimal;

/**
 * What a payment answers.
 *
 * @param orderId         the order paid
 * @param chargeId        the charge made
 * @param amount          what was charged
 * @param lock            the lock name ({@code payments:<order id>})
 * @param fencingToken    the token of the hold the charge was made under
 * @param holdCount       the hold count in {@link PaymentService#pay}: 1
 * @param nestedHoldCount the hold count in the nested {@link Settlement#settle}: 2, it re-entered
 * @param paidBy          the lock client id of the instance that was paid
 */
public record PaymentReceipt(long orderId, long chargeId, BigDecimal amount, String lock, long fencingToken,
        int holdCount, int nestedHoldCount, String paidBy) {
}
