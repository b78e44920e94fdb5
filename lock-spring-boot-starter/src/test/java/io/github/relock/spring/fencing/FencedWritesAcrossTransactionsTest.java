package io.github.relock.spring.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.support.TransactionTemplate;

import io.github.relock.core.StaleFencingTokenException;
import io.github.relock.spring.jdbc.FencedJdbc;

/**
 * {@link FencedJdbc#advance} on H2 where the two holders' transactions overlap: a stale write that waits on the
 * next holder's uncommitted row is refused once that commits; ids of another type and token edge values behave.
 */
@Timeout(60)
class FencedWritesAcrossTransactionsTest {

    private EmbeddedDatabase database;
    private JdbcClient jdbc;
    private TransactionTemplate transactions;

    @BeforeEach
    void createTable() {
        database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
                .setName("fenced-tx-" + UUID.randomUUID() + ";LOCK_TIMEOUT=10000").build();
        jdbc = JdbcClient.create(database);
        transactions = new TransactionTemplate(new DataSourceTransactionManager(database));
        jdbc.sql("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(16), lock_token BIGINT)").update();
        jdbc.sql("INSERT INTO orders (id, status) VALUES (1, 'NEW'), (2, 'NEW')").update();
    }

    @AfterEach
    void dropDatabase() {
        database.shutdown();
    }

    @Test
    void aStaleWriteWaitingOnTheNextHoldersUncommittedRowIsRefusedOnceItCommits() throws Exception {
        CountDownLatch nextWrote = new CountDownLatch(1);
        CountDownLatch staleStarted = new CountDownLatch(1);
        CompletableFuture<Void> next = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(status -> {
            FencedJdbc.advance(jdbc, "orders", "id", 1L, "lock_token", 9, Map.of("status", "NEXT"));
            nextWrote.countDown();
            await(staleStarted);
            sleep(300); // the stale UPDATE is now waiting on this row
        }));
        assertThat(nextWrote.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> stale = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(status -> {
            staleStarted.countDown();
            FencedJdbc.advance(jdbc, "orders", "id", 1L, "lock_token", 5, Map.of("status", "STALE"));
        }));
        next.get(20, TimeUnit.SECONDS);
        assertThatThrownBy(() -> stale.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(StaleFencingTokenException.class);
        assertThat(jdbc.sql("SELECT status FROM orders WHERE id = 1").query(String.class).single()).isEqualTo("NEXT");
        assertThat(jdbc.sql("SELECT lock_token FROM orders WHERE id = 1").query(Long.class).single()).isEqualTo(9L);
    }

    @Test
    void anIdOfAnotherTypeOrLookingLikeSqlPicksNoOtherRow() {
        FencedJdbc.advance(jdbc, "orders", "id", "2", "lock_token", 3);
        assertThat(jdbc.sql("SELECT lock_token FROM orders WHERE id = 2").query(Long.class).single()).isEqualTo(3L);
        assertThatThrownBy(() -> FencedJdbc.advance(jdbc, "orders", "id", "1 OR 1=1", "lock_token", 4))
                .isInstanceOf(RuntimeException.class);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM orders WHERE lock_token IS NOT NULL").query(Long.class).single())
                .isEqualTo(1L);
        assertThatThrownBy(() -> FencedJdbc.advance(jdbc, "orders", "id", null, "lock_token", 4))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void tokenEdgeValuesOnlyEverMoveForward() {
        FencedJdbc.advance(jdbc, "orders", "id", 1L, "lock_token", Long.MIN_VALUE);
        FencedJdbc.advance(jdbc, "orders", "id", 1L, "lock_token", 0);
        assertThatThrownBy(() -> FencedJdbc.advance(jdbc, "orders", "id", 1L, "lock_token", -1))
                .isInstanceOf(StaleFencingTokenException.class);
        FencedJdbc.advance(jdbc, "orders", "id", 1L, "lock_token", Long.MAX_VALUE);
        assertThatThrownBy(() -> FencedJdbc.advance(jdbc, "orders", "id", 1L, "lock_token", Long.MAX_VALUE))
                .isInstanceOf(StaleFencingTokenException.class).hasMessageContaining(String.valueOf(Long.MAX_VALUE));
    }

    /** A qualified spelling of the token or id column is the same column: it may not be set alongside. */
    @Test
    void otherColumnsMayNotSetTheTokenOrIdColumnByAQualifiedName() {
        assertThatThrownBy(() -> FencedJdbc.advance(jdbc, "orders", "id", 1L, "lock_token", 9,
                Map.of("orders.lock_token", 0L))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FencedJdbc.advance(jdbc, "orders", "id", 1L, "lock_token", 9,
                Map.of("PUBLIC.ORDERS.ID", 2L))).isInstanceOf(IllegalArgumentException.class);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM orders WHERE lock_token IS NOT NULL").query(Long.class).single())
                .isZero();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
