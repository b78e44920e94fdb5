package io.github.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDate;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.server.ResponseStatusException;

import com.jayway.jsonpath.JsonPath;

import io.github.relock.core.LockNames;
import io.github.relock.core.StaleFencingTokenException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.sample.TestSupport;
import io.github.relock.spring.CurrentLock;
import io.github.relock.spring.LockNotAcquiredException;

/** The guide's snippets, run: in a Spring Boot application on a redis-server of its own, over HTTP where they serve it. */
@SpringBootTest(classes = DocsApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"relock.locks.shipping.wait-time=200ms", "relock.locks.statements.wait-time=0s"})
@DirtiesContext
class SnippetsAgainstRedisTest {

    static final int REDIS_PORT = TestSupport.freePort();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.port", () -> REDIS_PORT);
        registry.add("spring.datasource.url", () -> "jdbc:h2:mem:docs-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @Autowired
    Environment environment;

    @Autowired
    RedisLockClient locks;

    @Autowired
    RedisConnectionFactory redis;

    @Autowired
    ShippingService shipping;

    @Autowired
    NightlyReport report;

    @Autowired
    AccountService accounts;

    @Autowired
    DocumentService documents;

    @Autowired
    OrderPayments payments;

    @Autowired
    JdbcClient jdbc;

    String url(String path) {
        return "http://127.0.0.1:" + environment.getProperty("local.server.port") + path;
    }

    /** Holds {@code name} from another thread (another owner) while {@code whileHeld} runs. */
    void whileHeldElsewhere(String name, Runnable whileHeld) throws Exception {
        ReentrantDistributedLock lock = locks.getLock(name);
        CompletableFuture.runAsync(lock::lock).get(5, TimeUnit.SECONDS);
        try {
            whileHeld.run();
        }
        finally {
            CompletableFuture.runAsync(lock::forceUnlock).get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theQuickStartShipsAndReentersTheOrdersLockInTheNestedCall() {
        HttpResponse<String> shipped = TestSupport.post(url("/orders/7/ship"));

        assertThat(shipped.statusCode()).as(shipped.body()).isEqualTo(200);
        assertThat((String) JsonPath.read(shipped.body(), "$.label")).isEqualTo("SHIP-7-1");
        assertThat(locks.getLock(LockNames.of("shipping", "7")).isLocked()).isFalse();
    }

    @Test
    void aBusyOrderIsA409NamingTheLock() throws Exception {
        whileHeldElsewhere(LockNames.of("shipping", "8"), () -> {
            HttpResponse<String> busy = TestSupport.post(url("/orders/8/ship"));

            assertThat(busy.statusCode()).as(busy.body()).isEqualTo(409);
            assertThat((String) JsonPath.read(busy.body(), "$.title")).isEqualTo("Lock busy");
            assertThat((String) JsonPath.read(busy.body(), "$.lock")).isEqualTo("shipping:8");
        });
        assertThat(TestSupport.post(url("/orders/8/ship")).statusCode()).isEqualTo(200);
    }

    @Test
    void theScheduledJobRunsWhereTheLockIsFreeAndIsSkippedWhereItIsNot() throws Exception {
        whileHeldElsewhere("nightly-report", report::build);
        assertThat(report.skipped()).isEqualTo(1);
        assertThat(report.built()).isZero();

        report.build();
        assertThat(report.built()).isEqualTo(1);
    }

    @Test
    void theAnnotationExamplesLockWhatTheySay() throws Exception {
        accounts.deposit(new AccountService.Deposit("a", 500));
        accounts.transfer("a", "b", 200);
        assertThat(accounts.statement("b")).isEqualTo("b: 200");
        whileHeldElsewhere(LockNames.of("statements", "b"),
                () -> assertThat(accounts.statement("b")).contains("being prepared"));
        whileHeldElsewhere(LockNames.of("accounts", "b"), () -> assertThatThrownBy(
                () -> accounts.deposit(new AccountService.Deposit("b", 1))).isInstanceOf(LockNotAcquiredException.class));
        accounts.close("a");
        assertThat(accounts.balances()).containsOnlyKeys("b");

        documents.write(1, "draft");
        assertThat(documents.read(1)).isEqualTo("draft");
        assertThat(documents.render(LocalDate.of(2026, 11, 28))).isEqualTo("report 2026-11-28");
    }

    @Test
    void theFailureHandlerTurnsABusyLockInto409() throws Exception {
        LockNotAcquiredException[] busy = new LockNotAcquiredException[1];
        whileHeldElsewhere(LockNames.of("shipping", "9"), () -> {
            try {
                shipping.ship(new ShippingService.Order(9));
            }
            catch (LockNotAcquiredException ex) {
                busy[0] = ex;
            }
        });
        assertThat(busy[0]).isNotNull();
        Method ship = ShippingService.class.getMethod("ship", ShippingService.Order.class);

        assertThatThrownBy(() -> new FailureHandlerConfiguration().lockFailureHandler().lockNotAcquired(ship,
                new Object[] {new ShippingService.Order(9)}, busy[0]))
                .isInstanceOfSatisfying(ResponseStatusException.class,
                        conflict -> assertThat(conflict.getStatusCode().value()).isEqualTo(409));
    }

    @Test
    void theCoreApiExamplesRunOnAClientOfTheirOwn() throws Exception {
        assertThat(CoreApiExamples.tenLines(redis)).isPositive();
        try (CoreApiExamples examples = new CoreApiExamples(redis)) {
            assertThat(examples.tryLock()).isTrue();
            assertThat(examples.byName()).isTrue();
            assertThat(examples.reenter()).isEqualTo(2);
            assertThat(examples.fixedLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
            assertThat(examples.settings()).isEqualTo("payments:42");
            assertThat(examples.multi()).isTrue();
            examples.readWrite();
            assertThat(examples.fair()).isTrue();
            assertThat(examples.async().get(10, TimeUnit.SECONDS)).isEqualTo("paid");
            examples.listen();
            assertThat(examples.ledger).hasSizeGreaterThanOrEqualTo(6);
            assertThat(examples.ledger.subList(2, 5)).as("read, write, downgraded read tokens only grow").isSorted();
        }
    }

    long newOrder() {
        jdbc.sql("INSERT INTO orders (customer, amount, status, created_at) VALUES ('ada', 42.50, 'NEW', CURRENT_TIMESTAMP)")
                .update();
        return jdbc.sql("SELECT MAX(id) FROM orders").query(Long.class).single();
    }

    @Test
    void theFencedWriteStoresTheTokenAndRefusesAHolderALaterOneOvertook() {
        long paid = newOrder();
        payments.markPaid(paid);
        assertThat(jdbc.sql("SELECT status FROM orders WHERE id = ?").param(paid).query(String.class).single())
                .isEqualTo("PAID");
        assertThat(jdbc.sql("SELECT fencing_token FROM orders WHERE id = ?").param(paid).query(Long.class).single())
                .isPositive();

        long overtaken = newOrder();
        jdbc.sql("UPDATE orders SET fencing_token = ? WHERE id = ?").params(Long.MAX_VALUE, overtaken).update();
        assertThatThrownBy(() -> payments.markPaid(overtaken)).isInstanceOfSatisfying(
                StaleFencingTokenException.class, stale -> assertThat(stale.getTable()).isEqualTo("orders"));
        assertThat(jdbc.sql("SELECT status FROM orders WHERE id = ?").param(overtaken).query(String.class).single())
                .isEqualTo("NEW");
    }

    @Test
    void currentLockNamesTheHoldOfTheKeyAskedFor() {
        assertThat(payments.describe("a", "b")).startsWith("transfer:b token ").endsWith(", held 1x");
        assertThatThrownBy(CurrentLock::assertHeld).isInstanceOf(IllegalStateException.class);
    }
}
