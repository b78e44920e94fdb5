package io.github.relock.sample.orders;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

import io.github.relock.core.StaleFencingTokenException;
import io.github.relock.spring.jdbc.FencedJdbc;

/** Orders and payments in H2 ({@code schema.sql}), with plain SQL. */
@Repository
public class OrderRepository {

    private final JdbcClient jdbc;

    public OrderRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public Order create(String customer, BigDecimal amount) {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        KeyHolder key = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO orders (customer, amount, status, created_at) VALUES (?, ?, 'NEW', ?)")
                .params(customer, amount, now)
                .update(key, "id");
        return find(key.getKeyAs(Long.class)).orElseThrow();
    }

    public Optional<Order> find(long id) {
        return jdbc.sql("SELECT id, customer, amount, status, created_at FROM orders WHERE id = ?")
                .param(id)
                .query(OrderRepository::order)
                .optional();
    }

    /**
     * Marks the order paid, fenced by the lock hold's {@code fencingToken}: the order keeps the highest token that
     * wrote it, and a holder whose lease ran out (so a later holder wrote the order with a higher token) is refused.
     * No {@code AND status = 'NEW'}: that optimistic check would hide a broken lock instead of showing it.
     *
     * @throws StaleFencingTokenException if a later holder of the order's lock has written it
     */
    public void markPaid(long orderId, long fencingToken) {
        FencedJdbc.advance(jdbc, "orders", "id", orderId, "fencing_token", fencingToken, Map.of("status", "PAID"));
    }

    public Payment insertPayment(long orderId, BigDecimal amount, long fencingToken, String paidBy) {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        KeyHolder key = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO payments (order_id, amount, fencing_token, paid_by, paid_at) VALUES (?, ?, ?, ?, ?)")
                .params(orderId, amount, fencingToken, paidBy, now)
                .update(key, "id");
        return new Payment(key.getKeyAs(Long.class), orderId, amount, fencingToken, paidBy, now.toInstant());
    }

    public List<Payment> payments(long orderId) {
        return jdbc.sql("SELECT id, order_id, amount, fencing_token, paid_by, paid_at FROM payments WHERE order_id = ? ORDER BY id")
                .param(orderId)
                .query(OrderRepository::payment)
                .list();
    }

    public long countPayments(long orderId) {
        return jdbc.sql("SELECT COUNT(*) FROM payments WHERE order_id = ?").param(orderId).query(Long.class).single();
    }

    private static Order order(ResultSet rs, int row) throws SQLException {
        return new Order(rs.getLong("id"), rs.getString("customer"), rs.getBigDecimal("amount"),
                Order.Status.valueOf(rs.getString("status")), instant(rs, "created_at"));
    }

    private static Payment payment(ResultSet rs, int row) throws SQLException {
        return new Payment(rs.getLong("id"), rs.getLong("order_id"), rs.getBigDecimal("amount"),
                rs.getLong("fencing_token"), rs.getString("paid_by"), instant(rs, "paid_at"));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }
}
