package io.github.relock.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A returned Mono or Flux used the ways callers use them: subscribed several times at once, never, cut short
 * by take(1) or timeout(), cancelled while it waits. Each subscription holds the lock alone and gives it back.
 */
@Timeout(60)
@Tag("jdk-independent")
class ReactiveSubscriptionsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Rx.class)
            .withPropertyValues("relock.wait-time=10s");

    @Test
    @Timeout(20)
    void oneMonoSubscribedManyTimesAtOnceRunsItsBodiesOneAtATime() {
        runner.run(context -> {
            Rx rx = context.getBean(Rx.class);
            Mono<String> shared = rx.slow("many", 20);
            List<Mono<String>> subscriptions = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                subscriptions.add(shared.subscribeOn(Schedulers.parallel()));
            }
            assertThat(Flux.merge(subscriptions).collectList().block(Duration.ofSeconds(15))).hasSize(20);
            assertThat(rx.calls()).as("one body per subscription").isEqualTo(20);
            assertThat(rx.overlaps()).isZero();
            assertNothingLeft(context, "many");
        });
    }

    @Test
    @Timeout(20)
    void aMonoNeverSubscribedTakesNothing() {
        runner.run(context -> {
            Rx rx = context.getBean(Rx.class);
            for (int i = 0; i < 100; i++) {
                rx.slow("never", 10);
            }
            assertThat(rx.calls()).isZero();
            assertNothingLeft(context, "never");
        });
    }

    @Test
    @Timeout(20)
    void takeOneAndTimeoutCutTheBodyShortAndGiveTheLockBack() {
        runner.run(context -> {
            Rx rx = context.getBean(Rx.class);
            assertThat(rx.endless("take").take(1).collectList().block(Duration.ofSeconds(5))).containsExactly(0L);
            assertNothingLeft(context, "take");
            assertThat(unwrapped(() -> rx.slow("timeout", 5_000).timeout(Duration.ofMillis(200)).block(Duration.ofSeconds(5))))
                    .isInstanceOf(TimeoutException.class);
            assertNothingLeft(context, "timeout");
            assertThat(rx.slow("timeout", 1).block(Duration.ofSeconds(5))).as("free again").isEqualTo("timeout");
            assertThat(rx.empty("empty").block(Duration.ofSeconds(5))).isNull();
            assertThatThrownBy(() -> rx.failing("boom").block(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class)
                    .hasMessage("boom");
            assertThat(unwrapped(() -> rx.throwing("thrown").block(Duration.ofSeconds(5)))).isInstanceOf(AssertionError.class)
                    .hasMessage("thrown");
            assertNothingLeft(context, "empty");
            assertNothingLeft(context, "boom");
            assertNothingLeft(context, "thrown");
            assertThat(rx.overlaps()).isZero();
        });
    }

    /** Cancelled while another instance holds the lock: the wait ends, and a later release gives it to nobody. */
    @Test
    @Timeout(20)
    void cancelledWhileWaitingLeavesNothing() throws Exception {
        runner.run(context -> {
            Rx rx = context.getBean(Rx.class);
            try (RedisLockClient elsewhere = RedisLockClient.builder(redis.newConnectionFactory()).build()) {
                ReentrantDistributedLock busy = elsewhere.getLock(LockNames.of("rx", "busy"));
                assertThat(busy.tryLock(5, TimeUnit.SECONDS)).isTrue();
                List<reactor.core.Disposable> waiting = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    waiting.add(rx.slow("busy", 1).subscribe(value -> { }, error -> { }));
                }
                Thread.sleep(200);
                waiting.forEach(reactor.core.Disposable::dispose);
                busy.unlock();
                Thread.sleep(300);
                assertThat(rx.calls()).as("no cancelled subscription ran its body").isZero();
                assertNothingLeft(context, "busy");
            }
        });
    }

    /** The context closes while one subscription waits and another holds: both end promptly, neither hangs. */
    @Test
    @Timeout(20)
    void closingTheContextEndsWaitingAndHoldingSubscriptions() throws Exception {
        try (RedisLockClient elsewhere = RedisLockClient.builder(redis.newConnectionFactory()).build()) {
            ReentrantDistributedLock busy = elsewhere.getLock(LockNames.of("rx", "closing"));
            assertThat(busy.tryLock(5, TimeUnit.SECONDS)).isTrue();
            java.util.concurrent.CompletableFuture<String> waiting = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<String> holding = new java.util.concurrent.CompletableFuture<>();
            runner.run(context -> {
                Rx rx = context.getBean(Rx.class);
                rx.slow("closing", 1).subscribe(waiting::complete, waiting::completeExceptionally);
                rx.slow("held", 1_000).subscribe(holding::complete, holding::completeExceptionally);
                await().atMost(Duration.ofSeconds(5)).until(() -> rx.calls() == 1);
            });
            long closed = System.nanoTime();
            assertThat(waiting).as("the waiting subscription").failsWithin(Duration.ofSeconds(5));
            assertThat(holding).as("the holding subscription").succeedsWithin(Duration.ofSeconds(5)).isEqualTo("held");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed)).isLessThan(3_000);
            busy.unlock();
        }
    }

    private static Throwable unwrapped(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        return Exceptions.unwrap(catchThrowable(call));
    }

    private static void assertNothingLeft(ApplicationContext context, String id) {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
            assertThat(redis.commands().exists(RelockContexts.redisKeys(context, LockNames.of("rx", id)).lock())).isZero();
        });
    }

    public static class Rx {

        private final AtomicInteger calls = new AtomicInteger();
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger overlaps = new AtomicInteger();

        public int calls() {
            return calls.get();
        }

        public int overlaps() {
            return overlaps.get();
        }

        @DistributedLock(name = "rx", key = "#id")
        public Mono<String> slow(String id, long millis) {
            calls.incrementAndGet();
            return tracked(Mono.delay(Duration.ofMillis(millis)).thenReturn(id));
        }

        @DistributedLock(name = "rx", key = "#id")
        public Flux<Long> endless(String id) {
            return tracked(Flux.interval(Duration.ofMillis(10)));
        }

        @DistributedLock(name = "rx", key = "#id")
        public Mono<String> empty(String id) {
            return Mono.empty();
        }

        @DistributedLock(name = "rx", key = "#id")
        public Mono<String> failing(String id) {
            return Mono.error(new IllegalStateException(id));
        }

        @DistributedLock(name = "rx", key = "#id")
        public Mono<String> throwing(String id) {
            throw new AssertionError(id);
        }

        private <T> Mono<T> tracked(Mono<T> body) {
            return Mono.defer(() -> {
                enter();
                return body.doOnTerminate(inside::decrementAndGet).doOnCancel(inside::decrementAndGet);
            });
        }

        private <T> Flux<T> tracked(Flux<T> body) {
            return Flux.defer(() -> {
                enter();
                return body.doOnTerminate(inside::decrementAndGet).doOnCancel(inside::decrementAndGet);
            });
        }

        private void enter() {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
        }
    }
}
