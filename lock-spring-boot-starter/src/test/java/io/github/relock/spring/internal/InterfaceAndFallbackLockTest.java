package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.RelockContexts;
import io.github.relock.spring.autoconfigure.RelockFailureAnalyzer;
import io.github.relock.test.RedisServerExtension;

/**
 * Annotated methods the proxy reaches in less direct ways still run under their lock: a method annotated on
 * an interface and implemented by a base class that does not implement it, and a fallback method with a
 * lock of its own.
 */
@Timeout(60)
class InterfaceAndFallbackLockTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisLockClient elsewhere;

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    @BeforeAll
    static void startOtherInstance() {
        elsewhere = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterAll
    static void stopOtherInstance() {
        elsewhere.close();
    }

    @Test
    void anInterfaceMethodImplementedByABaseClassIsLocked() throws InterruptedException {
        ReentrantDistributedLock busy = elsewhere.getLock("shipping:1");
        assertThat(busy.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            runner.withBean(InheritedShipping.class).run(context -> {
                Shipping shipping = context.getBean(Shipping.class);
                assertThatThrownBy(() -> shipping.ship("1")).isInstanceOf(LockNotAcquiredException.class);
                assertThat(shipping.ship("2")).isEqualTo("shipped 2");
            });
        }
        finally {
            busy.unlock();
        }
    }

    @Test
    void aFallbackWithItsOwnLockRunsUnderIt() throws InterruptedException {
        ReentrantDistributedLock payment = elsewhere.getLock("payments:1");
        ReentrantDistributedLock queue = elsewhere.getLock("queue:1");
        assertThat(payment.tryLock(0, TimeUnit.SECONDS)).isTrue();
        assertThat(queue.tryLock(0, TimeUnit.SECONDS)).isTrue();
        try {
            runner.withBean(QueueingPayments.class).run(context -> {
                QueueingPayments payments = context.getBean(QueueingPayments.class);
                assertThatThrownBy(() -> payments.pay("1")).as("the fallback's own lock is busy")
                        .isInstanceOfSatisfying(LockNotAcquiredException.class,
                                ex -> assertThat(ex.getLockName()).isEqualTo("queue:1"));
                queue.unlock();
                assertThat(payments.pay("1")).isEqualTo("queued 1 holding queue:1");
            });
        }
        finally {
            payment.unlock();
            if (queue.isHeldByCurrentThread()) {
                queue.unlock();
            }
        }
    }

    @Test
    void aLockedFallbackAnInterfaceProxyDoesNotExposeStopsStartup() {
        runner.withPropertyValues("spring.aop.proxy-target-class=false").withBean("payments", InterfacePayments.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
                    assertThat(analysis.getDescription()).contains("bean 'payments'", "fallbackMethod 'queue'",
                            "does not expose it");
                    assertThat(analysis.getAction()).contains("interface");
                });
    }

    public interface Paying {

        String pay(String id);
    }

    public static class InterfacePayments implements Paying {

        @Override
        @DistributedLock(name = "payments", key = "#id", waitTime = "0s", fallbackMethod = "queue")
        public String pay(String id) {
            return "paid " + id;
        }

        @DistributedLock(name = "queue", key = "#id", waitTime = "0s")
        public String queue(String id) {
            return "queued " + id;
        }
    }

    public interface Shipping {

        @DistributedLock(name = "shipping", key = "#id", waitTime = "0s")
        String ship(String id);
    }

    /** Implements nothing: its method becomes the interface's only in the subclass. */
    public static class ShippingBase {

        public String ship(String id) {
            return "shipped " + id;
        }
    }

    public static class InheritedShipping extends ShippingBase implements Shipping {
    }

    public static class QueueingPayments {

        private final RedisLockClient client;

        public QueueingPayments(RedisLockClient client) {
            this.client = client;
        }

        @DistributedLock(name = "payments", key = "#id", waitTime = "0s", fallbackMethod = "queue")
        public String pay(String id) {
            return "paid " + id;
        }

        @DistributedLock(name = "queue", key = "#id", waitTime = "0s")
        public String queue(String id) {
            return "queued " + id + " holding " + String.join(",",
                    client.heldLocks().stream().map(held -> held.name()).toList());
        }
    }
}
