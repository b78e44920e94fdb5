package io.github.relock.sample.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import io.github.relock.core.LockNames;
import io.github.relock.sample.reactive.orders.Charge;
import io.github.relock.sample.reactive.orders.Order;
import io.github.relock.sample.reactive.payments.PaymentReceipt;
import io.github.relock.sample.reactive.payments.Settlement;
import io.github.relock.test.RedisServerExtension;

/** Paying orders over HTTP: one charge per order however many pay at once, and the nested Mono re-enters. */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class PaymentTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    static RunningSample sample;

    @BeforeAll
    static void start() {
        sample = RunningSample.start(redis);
    }

    @AfterAll
    static void stop() {
        sample.close();
    }

    @Test
    void concurrentPaymentsOfOneOrderChargeItOnceAndTheOthersGet409() throws Exception {
        long id = createOrder();
        int payers = 8;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(payers);
        List<Future<EntityExchangeResult<String>>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < payers; i++) {
                answers.add(pool.submit(() -> {
                    go.await();
                    return sample.client().post().uri("/orders/{id}/pay", id).exchange()
                            .expectBody(String.class).returnResult();
                }));
            }
            go.countDown();
            List<EntityExchangeResult<String>> results = new ArrayList<>();
            for (Future<EntityExchangeResult<String>> answer : answers) {
                results.add(answer.get(60, TimeUnit.SECONDS));
            }

            assertThat(results).filteredOn(result -> result.getStatus().value() == 200).as("paid").hasSize(1);
            assertThat(results).filteredOn(result -> result.getStatus().value() == 409).as("turned away")
                    .hasSize(payers - 1)
                    .allSatisfy(result -> {
                        assertThat(result.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
                        assertThat(result.getResponseBody()).containsAnyOf("urn:relock-reactive-sample:lock-busy",
                                "urn:relock-reactive-sample:already-paid");
                    });
        }
        finally {
            pool.shutdownNow();
        }
        Order paid = order(id);
        assertThat(paid.status()).isEqualTo(Order.PAID);
        assertThat(paid.charges()).as("charges of the order").hasSize(1);
        assertThat(lockIsGone(id)).isTrue();
    }

    @Test
    void theNestedSettlementMonoReEntersTheLockOfThePayment(CapturedOutput output) {
        long id = createOrder();

        PaymentReceipt receipt = sample.client().post().uri("/orders/{id}/pay", id).exchange()
                .expectStatus().isOk().expectBody(PaymentReceipt.class).returnResult().getResponseBody();

        String lockName = LockNames.of("payments", Long.toString(id));
        assertThat(receipt).isNotNull();
        assertThat(receipt.lock()).isEqualTo(lockName);
        assertThat(receipt.holdCount()).isEqualTo(1);
        assertThat(receipt.nestedHoldCount()).as("the nested call re-entered").isEqualTo(2);
        assertThat(receipt.paidBy()).isEqualTo(sample.locks().getClientId());
        assertThat(output.getOut()).contains("Settling order " + id + " with charge " + receipt.chargeId() + ": lock "
                + lockName + " re-entered by the nested Mono, hold count 2");
        Order paid = order(id);
        assertThat(paid.charges()).singleElement().satisfies(charge -> {
            assertThat(charge.id()).isEqualTo(receipt.chargeId());
            assertThat(charge.fencingToken()).isEqualTo(receipt.fencingToken());
        });
        assertThat(lockIsGone(id)).as("released after the outer Mono").isTrue();
    }

    @Test
    void theSettlementOnItsOwnTakesTheLockItself() {
        long id = createOrder();
        Charge charge = new Charge(99, id, BigDecimal.ONE, 1, "test", Instant.now());

        Integer holdCount = sample.bean(Settlement.class).settle(id, charge).block(Duration.ofSeconds(10));

        assertThat(holdCount).isEqualTo(1);
        assertThat(order(id).status()).isEqualTo(Order.PAID);
        assertThat(lockIsGone(id)).isTrue();
    }

    @Test
    void aPaymentWhileASlowOneHoldsTheLockGets409LockBusyAfterTheWaitTime() throws Exception {
        long id = createOrder();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<EntityExchangeResult<PaymentReceipt>> slow = pool.submit(() -> sample.client().post()
                    .uri("/orders/{id}/pay?delayMs=1500", id).exchange().expectBody(PaymentReceipt.class).returnResult());
            await().atMost(Duration.ofSeconds(10)).until(() -> !lockIsGone(id));

            sample.client().post().uri("/orders/{id}/pay", id).exchange()
                    .expectStatus().isEqualTo(409)
                    .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody()
                    .jsonPath("$.type").isEqualTo("urn:relock-reactive-sample:lock-busy")
                    .jsonPath("$.lockKey").isEqualTo("lock:{payments:" + id + "}")
                    .jsonPath("$.waitedMs").value(Number.class, waited -> assertThat(waited.longValue()).isGreaterThanOrEqualTo(200));

            assertThat(slow.get(30, TimeUnit.SECONDS).getStatus().value()).isEqualTo(200);
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(order(id).charges()).hasSize(1);
    }

    private static long createOrder() {
        Order created = sample.client().post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"customer\":\"ada\",\"amount\":42.50}").exchange()
                .expectStatus().isCreated().expectBody(Order.class).returnResult().getResponseBody();
        assertThat(created).isNotNull();
        return created.id();
    }

    private static Order order(long id) {
        Order order = sample.client().get().uri("/orders/{id}", id).exchange()
                .expectStatus().isOk().expectBody(Order.class).returnResult().getResponseBody();
        assertThat(order).isNotNull();
        return order;
    }

    private static boolean lockIsGone(long id) {
        String key = sample.locks().redisKeys(LockNames.of("payments", Long.toString(id))).lock();
        return redis.commands().exists(key) == 0;
    }
}
