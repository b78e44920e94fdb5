package io.github.relock.sample;

import static io.github.relock.sample.TestSupport.contentType;
import static io.github.relock.sample.TestSupport.get;
import static io.github.relock.sample.TestSupport.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import com.jayway.jsonpath.JsonPath;

import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.StaleFencingTokenException;
import io.github.relock.sample.orders.Order;
import io.github.relock.sample.orders.OrderRepository;
import io.github.relock.sample.orders.Payment;
import io.github.relock.sample.payments.LedgerService;
import io.github.relock.sample.redis.EmbeddedRedisServer;

/**
 * The HTTP API against the embedded Redis this context starts on a free port, and a second instance of
 * the application (its own context, lock client and Redis connections) sharing that Redis and the
 * in-memory database.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ExtendWith(OutputCaptureExtension.class)
@DirtiesContext
class OrderPaymentTest {

    static final int REDIS_PORT = TestSupport.freePort();

    static final String DATABASE = "jdbc:h2:mem:payments-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.port", () -> REDIS_PORT);
        registry.add("spring.datasource.url", () -> DATABASE);
    }

    @Autowired
    Environment environment;

    @Autowired
    RedisLockClient lockClient;

    @Autowired
    OrderRepository orders;

    @Autowired
    LedgerService ledger;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    EmbeddedRedisServer redis;

    String base() {
        return "http://127.0.0.1:" + environment.getProperty("local.server.port");
    }

    long createOrder(String base) {
        HttpResponse<String> created = post(base + "/orders", "{\"customer\":\"ada\",\"amount\":42.50}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return ((Number) JsonPath.read(created.body(), "$.id")).longValue();
    }

    @Test
    void theContextStartedItsOwnEmbeddedRedisOnTheConfiguredPort() {
        assertThat(redis.isEmbedded()).isTrue();
        assertThat(redis.getPort()).isEqualTo(REDIS_PORT);
        assertThat(ProcessHandle.of(redis.pid())).hasValueSatisfying(process -> assertThat(process.isAlive()).isTrue());
    }

    @Test
    void aCreatedOrderIsShownWithItsPayments() {
        HttpResponse<String> created = post(base() + "/orders", "{\"customer\":\"ada\",\"amount\":42.50}");

        assertThat(created.statusCode()).isEqualTo(201);
        long id = ((Number) JsonPath.read(created.body(), "$.id")).longValue();
        assertThat(created.headers().firstValue("Location")).hasValue("/orders/" + id);
        HttpResponse<String> shown = get(base() + "/orders/" + id);
        assertThat(shown.statusCode()).isEqualTo(200);
        assertThat((String) JsonPath.read(shown.body(), "$.customer")).isEqualTo("ada");
        assertThat((Double) JsonPath.read(shown.body(), "$.amount")).isEqualTo(42.5);
        assertThat((String) JsonPath.read(shown.body(), "$.status")).isEqualTo("NEW");
        assertThat((List<?>) JsonPath.read(shown.body(), "$.payments")).isEmpty();
    }

    @Test
    void payingReentersTheLockInTheNestedLedgerCall(CapturedOutput output) {
        long id = createOrder(base());

        HttpResponse<String> paid = post(base() + "/orders/" + id + "/pay");

        String lockName = LockNames.of("payments", Long.toString(id));
        assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
        assertThat((String) JsonPath.read(paid.body(), "$.lock")).isEqualTo(lockName);
        assertThat((Integer) JsonPath.read(paid.body(), "$.holdCount")).isEqualTo(1);
        assertThat((Integer) JsonPath.read(paid.body(), "$.nestedHoldCount")).isEqualTo(2);
        assertThat((Boolean) JsonPath.read(paid.body(), "$.virtualThread"))
                .as("application.yml enables virtual threads; Boot ignores that below JDK 21")
                .isEqualTo(Runtime.version().feature() >= 21);
        assertThat(output.getOut()).contains("Ledger for order " + id + ": lock " + lockName
                + " re-entered by the nested call, hold count 2");
        assertThat(lockClient.getLock(lockName).isLocked()).as("released after the outer call").isFalse();

        HttpResponse<String> shown = get(base() + "/orders/" + id);
        assertThat((String) JsonPath.read(shown.body(), "$.status")).isEqualTo("PAID");
        assertThat((List<?>) JsonPath.read(shown.body(), "$.payments")).hasSize(1);
        assertThat(((Number) JsonPath.read(shown.body(), "$.payments[0].fencingToken")).longValue())
                .isEqualTo(((Number) JsonPath.read(paid.body(), "$.fencingToken")).longValue());
        assertThat((String) JsonPath.read(shown.body(), "$.payments[0].paidBy")).isEqualTo(lockClient.getClientId());
    }

    @Test
    void thePrometheusEndpointListsTheRelockMetersByLockNameAfterAPayment() {
        long id = createOrder(base());
        assertThat(post(base() + "/orders/" + id + "/pay").statusCode()).isEqualTo(200);

        HttpResponse<String> scrape = get(base() + "/actuator/prometheus");

        assertThat(scrape.statusCode()).isEqualTo(200);
        String name = "\\{[^}]*relock_lock_name=\"payments\"[^}]*\\}";
        assertThat(scrape.body())
                .containsPattern("relock_calls_holding" + name + " 0\\.0")
                .containsPattern("relock_calls_waiting" + name + " 0\\.0")
                .containsPattern("relock_lock_not_acquired_total" + name)
                .containsPattern("relock_lock_lost_total" + name)
                .containsPattern("relock_lock_acquire_seconds_count\\{[^}]*relock_lock_outcome=\"acquired\"")
                .containsPattern("relock_lock_hold_seconds_count" + name)
                .doesNotContain("payments:" + id);
    }

    @Test
    void theLedgerCalledOnItsOwnTakesTheLockOnce() {
        Order order = orders.create("grace", new BigDecimal("7.00"));
        Payment payment = orders.insertPayment(order.id(), order.amount(), 1, "test");

        Integer holdCount = transactions.execute(status -> ledger.record(order, payment));

        assertThat(holdCount).isEqualTo(1);
    }

    @Test
    void markingPaidIsFencedAndTheDatabaseKeepsOnePaymentPerOrder() {
        Order order = orders.create("hopper", new BigDecimal("3.00"));
        transactions.executeWithoutResult(status -> orders.markPaid(order.id(), 10)); // a later holder wrote

        assertThatThrownBy(() -> transactions.executeWithoutResult(status -> orders.markPaid(order.id(), 9)))
                .as("an earlier hold's token").isInstanceOf(StaleFencingTokenException.class)
                .hasMessageContaining("the row carries token 10 in fencing_token");
        orders.insertPayment(order.id(), order.amount(), 10, "test");
        assertThatThrownBy(() -> orders.insertPayment(order.id(), order.amount(), 10, "test"))
                .isInstanceOf(DuplicateKeyException.class);
        assertThat(orders.countPayments(order.id())).isEqualTo(1);
    }

    @Test
    void payingAPaidOrderIs409AlreadyPaid() {
        long id = createOrder(base());
        HttpResponse<String> first = post(base() + "/orders/" + id + "/pay");
        long paymentId = ((Number) JsonPath.read(first.body(), "$.paymentId")).longValue();

        HttpResponse<String> second = post(base() + "/orders/" + id + "/pay");

        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(contentType(second)).isEqualTo("application/problem+json");
        assertThat((String) JsonPath.read(second.body(), "$.type")).isEqualTo("urn:relock-sample:already-paid");
        assertThat((String) JsonPath.read(second.body(), "$.title")).isEqualTo("Order already paid");
        assertThat((Integer) JsonPath.read(second.body(), "$.status")).isEqualTo(409);
        assertThat(((Number) JsonPath.read(second.body(), "$.orderId")).longValue()).isEqualTo(id);
        assertThat(((Number) JsonPath.read(second.body(), "$.paymentId")).longValue()).isEqualTo(paymentId);
        assertThat(orders.countPayments(id)).isEqualTo(1);
    }

    @Test
    void aPaymentWhileAnotherHoldsTheLockIs409LockBusyAndTheActuatorShowsTheHolder() throws Exception {
        long id = createOrder(base());
        CompletableFuture<HttpResponse<String>> slow = CompletableFuture
                .supplyAsync(() -> post(base() + "/orders/" + id + "/pay?delayMs=3000"));
        String lockName = LockNames.of("payments", Long.toString(id));
        String lockKey = lockClient.redisKeys(lockName).lock();
        String filter = "$.locks[?(@.name == '" + lockName + "')]";
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !((List<?>) JsonPath.read(get(base() + "/actuator/relock").body(), filter)).isEmpty());

        String held = get(base() + "/actuator/relock").body();
        List<Map<String, Object>> locks = JsonPath.read(held, filter);
        assertThat(locks.get(0)).containsEntry("key", lockKey).containsEntry("holdCount", 1)
                .containsEntry("watchdog", false);
        // Tomcat's pool names its threads http-nio-...; with virtual threads (JDK 21+) Boot names them tomcat-handler-...
        assertThat((String) locks.get(0).get("ownerThread")).startsWith(Runtime.version().feature() >= 21 ? "tomcat-handler-" : "http-");
        assertThat((String) JsonPath.read(held, "$.clientId")).isEqualTo(lockClient.getClientId());

        HttpResponse<String> busy = post(base() + "/orders/" + id + "/pay");

        assertThat(busy.statusCode()).as(busy.body()).isEqualTo(409);
        assertThat(contentType(busy)).isEqualTo("application/problem+json");
        assertThat((String) JsonPath.read(busy.body(), "$.type")).isEqualTo("urn:relock-sample:lock-busy");
        assertThat((String) JsonPath.read(busy.body(), "$.title")).isEqualTo("Lock busy");
        assertThat((String) JsonPath.read(busy.body(), "$.lock")).isEqualTo(lockName);
        assertThat((String) JsonPath.read(busy.body(), "$.lockKey")).isEqualTo(lockKey);
        assertThat((Integer) JsonPath.read(busy.body(), "$.waitTimeMs")).isEqualTo(200);
        assertThat((String) JsonPath.read(busy.body(), "$.detail")).contains("payments", lockKey);

        HttpResponse<String> slowPaid = slow.get(30, TimeUnit.SECONDS);
        assertThat(slowPaid.statusCode()).as(slowPaid.body()).isEqualTo(200);
        assertThat((List<?>) JsonPath.read(get(base() + "/actuator/relock").body(), filter)).isEmpty();
        assertThat(orders.countPayments(id)).isEqualTo(1);
    }

    @Test
    void unknownOrdersAndBadInputAreProblemsToo() {
        HttpResponse<String> missing = post(base() + "/orders/999999/pay");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(contentType(missing)).isEqualTo("application/problem+json");
        assertThat((String) JsonPath.read(missing.body(), "$.title")).isEqualTo("Order not found");

        HttpResponse<String> tooSlow = post(base() + "/orders/" + createOrder(base()) + "/pay?delayMs=60000");
        assertThat(tooSlow.statusCode()).isEqualTo(400);
        assertThat((String) JsonPath.read(tooSlow.body(), "$.detail")).contains("delayMs must be between 0 and 8000");

        HttpResponse<String> noAmount = post(base() + "/orders", "{\"customer\":\"ada\"}");
        assertThat(noAmount.statusCode()).isEqualTo(400);
        assertThat(contentType(noAmount)).isEqualTo("application/problem+json");
    }

    /**
     * Two instances of the application, each with its own lock client, 16 threads each, all paying one
     * order over HTTP at the same moment: one payment, 31 conflicts.
     */
    @Test
    void concurrentPaysFromTwoInstancesRecordExactlyOnePayment() throws Exception {
        try (ConfigurableApplicationContext second = new SpringApplicationBuilder(SampleApplication.class)
                .run("--server.port=0", "--spring.data.redis.port=" + REDIS_PORT, "--spring.datasource.url=" + DATABASE)) {
            String secondBase = "http://127.0.0.1:" + second.getEnvironment().getProperty("local.server.port");
            String secondClientId = second.getBean(RedisLockClient.class).getClientId();
            assertThat(secondClientId).isNotEqualTo(lockClient.getClientId());
            assertThat(second.getBean(EmbeddedRedisServer.class).isEmbedded()).as("shares the first one's Redis").isFalse();
            long id = createOrder(base());

            int threads = 16;
            List<String> urls = new ArrayList<>();
            for (String instance : List.of(base(), secondBase)) {
                urls.addAll(Collections.nCopies(threads, instance + "/orders/" + id + "/pay"));
            }
            List<HttpResponse<String>> responses = TestSupport.postAtOnce(urls);

            assertThat(responses).filteredOn(r -> r.statusCode() == 200).hasSize(1);
            assertThat(responses).filteredOn(r -> r.statusCode() == 409).hasSize(2 * threads - 1)
                    .allSatisfy(r -> {
                        assertThat(contentType(r)).isEqualTo("application/problem+json");
                        assertThat((String) JsonPath.read(r.body(), "$.type"))
                                .isIn("urn:relock-sample:lock-busy", "urn:relock-sample:already-paid");
                    });
            assertThat(orders.countPayments(id)).isEqualTo(1);
            HttpResponse<String> shown = get(secondBase + "/orders/" + id);
            assertThat((List<?>) JsonPath.read(shown.body(), "$.payments")).hasSize(1);
            assertThat((String) JsonPath.read(shown.body(), "$.payments[0].paidBy"))
                    .isIn(lockClient.getClientId(), secondClientId);
        }
        assertThat(TestSupport.listening(REDIS_PORT)).as("the first instance's Redis outlives the second").isTrue();
    }
}
