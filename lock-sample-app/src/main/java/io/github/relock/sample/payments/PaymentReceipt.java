package io.github.relock.sample.payments;

import java.math.BigDecimal;

/**
 * What {@code POST /orders/{id}/pay} answers after a payment went through.
 *
 * @param orderId          the order, now paid
 * @param paymentId        the payment recorded
 * @param amount           what was charged
 * @param lock             the lock it ran under, {@code payments:<order id>}
 * @param fencingToken     that hold's fencing token, stored with the payment
 * @param holdCount        the lock's hold count in {@code pay()}: 1
 * @param nestedHoldCount  the hold count the nested {@link LedgerService} call saw: 2, it re-entered
 * @param paidBy           the lock client id of the instance that took the payment
 * @param virtualThread    whether {@code pay()} ran on a virtual thread ({@code spring.threads.virtual.enabled},
 *                         JDK 21 or newer)
 */
public record PaymentReceipt(long orderId, long paymentId, BigDecimal amount, String lock, long fencingToken,
        int holdCount, int nestedHoldCount, String paidBy, boolean virtualThread) {
}
