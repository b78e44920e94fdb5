package io.github.relock.docs;

import java.util.Map;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.github.relock.core.HeldLock;
import io.github.relock.spring.CurrentLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.jdbc.FencedJdbc;

/** The fenced write, and what {@link CurrentLock} tells an annotated call about its hold. */
@Service
public class OrderPayments {

    private final JdbcClient jdbcClient;

    public OrderPayments(JdbcClient jdbcClient) {
        this.jdbcClient = jdbcClient;
    }

    // tag::fenced-write[]
    @DistributedLock(name = "orders", key = "#orderId")
    @Transactional
    public void markPaid(long orderId) {
        long token = CurrentLock.get().fencingToken();         // this call's hold: tokens only grow
        FencedJdbc.advance(jdbcClient, "orders", "id", orderId, "fencing_token", token,
                Map.of("status", "PAID"));
        // UPDATE orders SET fencing_token = ?, status = ?
        //   WHERE id = ? AND (fencing_token IS NULL OR fencing_token < ?)
        // a later holder wrote the row: StaleFencingTokenException, and the transaction rolls back
    }
    // end::fenced-write[]

    // tag::current-lock[]
    @DistributedLock(name = "transfer", keys = {"#from", "#to"})
    public String describe(String from, String to) {
        HeldLock hold = CurrentLock.get(to);        // several keys: pick one ("b", or "transfer:b")
        CurrentLock.assertHeld();                   // IllegalStateException outside a @DistributedLock call
        return hold.name() + " token " + hold.fencingToken() + ", held " + hold.holdCount() + "x";
    }
    // end::current-lock[]
}
