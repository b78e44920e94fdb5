package io.github.relock.sample.reactive.orders;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * An order and the charges made for it. Paying it twice would charge the customer twice: only the lock
 * per order prevents that (nothing in Redis refuses a second charge).
 *
 * @param id        the order's id
 * @param customer  who pays
 * @param amount    what one charge takes
 * @param status    {@code NEW}, then {@code PAID}
 * @param createdAt when it was created
 * @param charges   every charge made for it, in order: one if all went well
 */
public record Order(long id, String customer, BigDecimal amount, String status, Instant createdAt, List<Charge> charges) {

    /** Status of an order not paid yet. */
    public static final String NEW = "NEW";

    /** Status of a paid order. */
    public static final String PAID = "PAID";

    public boolean isPaid() {
        return PAID.equals(status);
    }
}
