package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockFailureHandler;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * What a call does when its lock is busy (exception, fallback method, application-wide handler), and
 * where its wait and lease come from (annotation, relock.locks.&lt;name&gt;, relock.*).
 */
@Timeout(60)
class LockFailureAndSettingsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisLockClient elsewhere;

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Payments.class)
            .withPropertyValues("relock.wait-time=100ms");

    private ReentrantDistributedLock busy;

    @BeforeAll
    static void startOtherInstance() {
        elsewhere = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterAll
    static void stopOtherInstance() {
        elsewhere.close();
    }

    /** Every test finds "payments:1" held by another instance. */
    @BeforeEach
    void holdElsewhere() throws InterruptedException {
        busy = elsewhere.getLock("payments:1");
        assertThat(busy.tryLock(0, TimeUnit.SECONDS)).isTrue();
    }

    @AfterEach
    void release() {
        busy.unlock();
    }

    @Test
    void theFallbackMethodRunsInsteadAndGetsTheException() {
        runner.run(context -> {
            Payments payments = context.getBean(Payments.class);
            assertThat(payments.payOrExplain("1")).isEqualTo("busy 1: " + busy.getKey());
            assertThat(payments.runs()).isZero();
        });
    }

    @Test
    void aFallbackMayTakeJustTheArguments() {
        runner.run(context -> assertThat(context.getBean(Payments.class).payOrDefault("1")).isEqualTo("later 1"));
    }

    @Test
    void aFailureHandlerBeanMapsFailuresOfMethodsWithoutAFallback() {
        LockFailureHandler handler = (method, arguments, exception) -> method.getName() + " busy: " + arguments[0];
        runner.withBean(LockFailureHandler.class, () -> handler).run(context -> {
            Payments payments = context.getBean(Payments.class);
            assertThat(payments.pay("1")).isEqualTo("pay busy: 1");
            assertThat(payments.payOrExplain("1")).as("a fallback method wins").startsWith("busy 1");
            assertThat(payments.runs()).isZero();
        });
    }

    @Test
    void aFailureHandlerMayThrowItsOwnException() {
        runner.withBean(LockFailureHandler.class, () -> (method, arguments, exception) -> {
            throw new IllegalStateException("409 Conflict", exception);
        }).run(context -> assertThatThrownBy(() -> context.getBean(Payments.class).pay("1"))
                .isInstanceOf(IllegalStateException.class).hasMessage("409 Conflict")
                .hasCauseInstanceOf(LockNotAcquiredException.class));
    }

    @Test
    void perNameSettingsApplyToMethodsThatUseTheName() {
        runner.withPropertyValues("relock.locks.payments.wait-time=0s", "relock.locks.payments.lease-time=10s")
                .run(context -> {
                    Payments payments = context.getBean(Payments.class);
                    assertThatThrownBy(() -> payments.pay("1")).isInstanceOfSatisfying(LockNotAcquiredException.class,
                            ex -> assertThat(ex.getWaitTime()).isZero());
                    HeldLock held = payments.payAndShowLock("2");
                    assertThat(held.watchdog()).isFalse();
                    assertThat(Duration.between(held.acquiredAt(), held.leaseExpiresAt()))
                            .isBetween(Duration.ofSeconds(9), Duration.ofSeconds(11));
                    assertThat(payments.unrelated("1")).as("other names keep the defaults").isTrue();
                });
    }

    @Test
    void globalSettingsApplyWhenNoNameSpecificOnesExist() {
        runner.withPropertyValues("relock.wait-time=50ms", "relock.lease-time=7s").run(context -> {
            Payments payments = context.getBean(Payments.class);
            assertThatThrownBy(() -> payments.pay("1")).isInstanceOfSatisfying(LockNotAcquiredException.class,
                    ex -> assertThat(ex.getWaitTime()).isEqualTo(Duration.ofMillis(50)));
            HeldLock held = payments.payAndShowLock("2");
            assertThat(held.watchdog()).isFalse();
            assertThat(Duration.between(held.acquiredAt(), held.leaseExpiresAt()))
                    .isBetween(Duration.ofSeconds(6), Duration.ofSeconds(8));
        });
    }

    @Test
    void withoutALeaseTheWatchdogKeepsTheLock() {
        runner.run(context -> assertThat(context.getBean(Payments.class).payAndShowLock("2").watchdog()).isTrue());
    }

    @Test
    void annotationAttributesWinOverConfigurationAndResolvePlaceholders() {
        runner.withPropertyValues("relock.locks.payments.wait-time=5s", "payments.wait=30ms").run(context ->
                assertThatThrownBy(() -> context.getBean(Payments.class).payQuickly("1"))
                        .isInstanceOfSatisfying(LockNotAcquiredException.class,
                                ex -> assertThat(ex.getWaitTime()).isEqualTo(Duration.ofMillis(30))));
    }

    @Test
    void aMethodThatRunsPastItsMaximumHoldTimeLosesTheLockAndIsTold() {
        runner.withPropertyValues("relock.watchdog-timeout=600ms", "relock.locks.slow.max-hold=400ms").run(context -> {
            Payments payments = context.getBean(Payments.class);
            assertThatThrownBy(() -> payments.slow("1", 1_200)).isInstanceOf(LockLostException.class);
            assertThat(payments.freedWhileRunning()).as("another instance got the lock while the body still ran")
                    .isTrue();
        });
    }

    @Test
    void defaultNamesWithADotAreConfiguredInBrackets() throws Exception {
        String name = Payments.class.getName() + ".refund";
        ReentrantDistributedLock other = elsewhere.getLock(name + ":1");
        assertThat(other.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            runner.withPropertyValues("relock.locks[" + name + "].wait-time=20ms").run(context ->
                    assertThatThrownBy(() -> context.getBean(Payments.class).refund("1"))
                            .isInstanceOfSatisfying(LockNotAcquiredException.class,
                                    ex -> assertThat(ex.getWaitTime()).isEqualTo(Duration.ofMillis(20))));
        }
        finally {
            other.unlock();
        }
    }

    public static class Payments {

        private final RedisLockClient client;
        private final AtomicInteger runs = new AtomicInteger();

        public Payments(RedisLockClient client) {
            this.client = client;
        }

        public int runs() {
            return runs.get();
        }

        @DistributedLock(name = "payments", key = "#id")
        public String pay(String id) {
            runs.incrementAndGet();
            return "paid " + id;
        }

        @DistributedLock(name = "payments", key = "#id", waitTime = "0s", fallbackMethod = "explain")
        public String payOrExplain(String id) {
            runs.incrementAndGet();
            return "paid " + id;
        }

        public String explain(String id, LockNotAcquiredException exception) {
            return "busy " + id + ": " + exception.getLockKey();
        }

        @DistributedLock(name = "payments", key = "#id", waitTime = "0s", fallbackMethod = "later")
        public String payOrDefault(String id) {
            runs.incrementAndGet();
            return "paid " + id;
        }

        protected String later(String id) {
            return "later " + id;
        }

        @DistributedLock(name = "payments", key = "#id", waitTime = "${payments.wait:1s}")
        public String payQuickly(String id) {
            runs.incrementAndGet();
            return "paid " + id;
        }

        @DistributedLock(name = "payments", key = "#id")
        public HeldLock payAndShowLock(String id) {
            return client.heldLocks().get(0);
        }

        private volatile boolean freedWhileRunning;

        public boolean freedWhileRunning() {
            return freedWhileRunning;
        }

        @DistributedLock(name = "slow", key = "#id")
        public String slow(String id, long millis) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (System.nanoTime() < deadline) {
                Thread.sleep(50);
                ReentrantDistributedLock probe = elsewhere.getLock(LockNames.of("slow", id));
                if (probe.tryLock()) {
                    freedWhileRunning = true;
                    probe.unlock();
                }
            }
            return "done " + id;
        }

        @DistributedLock(key = "#id")
        public String refund(String id) {
            return "refunded " + id;
        }

        @DistributedLock(name = "refunds", key = "#id")
        public boolean unrelated(String id) {
            return client.heldLocks().get(0).watchdog();
        }
    }
}
