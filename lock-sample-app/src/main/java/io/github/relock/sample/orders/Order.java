package io.github.relock.sample.orders;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * An order as stored. Read it again inside the lock before deciding anything: a copy read before the
 * lock was taken may already be out of date.
 *
 * @param id        the order id, also the key of its payment lock ({@code @DistributedLock(key = "#order.id")})
 * @param customer  who ordered
 * @param amount    what paying it charges
 * @param status    {@code NEW} until paid, then {@code PAID}
 * @param createdAt when it was created
 */
public record Order(long id, String customer, BigDecimal amount, Status status, Instant createdAt) {

    public enum Status {
        NEW, PAID
    }

    public boolean isPaid() {
        return status == Status.PAID;
    }
}
