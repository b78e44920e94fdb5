package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Lazy;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockMode;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.OtherInstance;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Methods returning a Mono or Flux take their lock when subscribed to, without blocking, and give it back
 * when the publisher completes, fails or is cancelled.
 */
@Timeout(120)
class ReactiveLockTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    @Order(OtherInstance.AFTER_REDIS)
    static final OtherInstance elsewhere = new OtherInstance(redis);

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Work.class)
            .withPropertyValues("relock.wait-time=30s");

    @BeforeEach
    void reset() {
        Work.inside.set(0);
        Work.maxInside.set(0);
        Work.overlaps.set(0);
        Work.calls.set(0);
    }

    @Test
    void monoBodiesOfTwoApplicationsNeverOverlap() {
        runner.run(first -> runner.run(second -> {
            List<Mono<String>> calls = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                calls.add(work(i % 2 == 0 ? first : second).mono("x", 15));
            }
            assertThat(Flux.merge(calls).collectList().block(Duration.ofSeconds(60))).hasSize(30);
            assertThat(Work.overlaps.get()).as("bodies inside at once").isZero();
            assertThat(Work.maxInside.get()).isOne();
            assertThat(redis.commands().exists(lockKey(first, "x"))).isZero();
        }));
    }

    @Test
    void fluxBodiesOfTwoApplicationsNeverOverlap() {
        runner.run(first -> runner.run(second -> {
            List<Flux<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                calls.add(work(i % 2 == 0 ? first : second).flux("y", 4));
            }
            assertThat(Flux.merge(calls).collectList().block(Duration.ofSeconds(60))).hasSize(48);
            assertThat(Work.overlaps.get()).as("bodies inside at once").isZero();
            assertThat(Work.maxInside.get()).isOne();
            assertThat(redis.commands().exists(lockKey(first, "y"))).isZero();
        }));
    }

    @Test
    void theLockIsTakenOnSubscriptionAndTheMethodCalledThen() {
        runner.run(context -> {
            Mono<String> mono = work(context).mono("sub", 300);
            assertThat(Work.calls.get()).as("method not called before subscription").isZero();
            assertThat(redis.commands().exists(lockKey(context, "sub"))).isZero();
            Disposable running = mono.subscribe();
            await().atMost(Duration.ofSeconds(5)).until(() -> Work.inside.get() == 1);
            assertThat(redis.commands().exists(lockKey(context, "sub"))).isOne();
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).singleElement()
                    .satisfies(held -> assertThat(held.ownerThread()).as("no thread owns it").isNull());
            await().atMost(Duration.ofSeconds(5)).until(running::isDisposed);
            assertThat(mono.block(Duration.ofSeconds(5))).as("a second subscription runs it again").isEqualTo("sub");
            assertThat(Work.calls.get()).isEqualTo(2);
            assertThat(redis.commands().exists(lockKey(context, "sub"))).isZero();
        });
    }

    @Test
    void nestedMonosOnTheSameLockReEnter() {
        runner.withPropertyValues("relock.wait-time=2s").run(context -> {
            assertThat(work(context).outer("n").block(Duration.ofSeconds(10))).isEqualTo("outer n");
            assertThat(work(context).outerFlux("n").collectList().block(Duration.ofSeconds(10)))
                    .containsExactly("n", "n");
            assertThat(redis.commands().exists(lockKey(context, "n"))).isZero();
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    /** Cancel reaches the body before the lock goes, even a body slow to stop: the next holder never runs beside it. */
    @Test
    void cancellingReleasesTheLockOnlyAfterTheBodyStopped() {
        runner.run(first -> runner.run(second -> {
            Disposable longOne = work(first).slowToStop("c").subscribe();
            await().atMost(Duration.ofSeconds(5)).until(() -> Work.inside.get() == 1);
            Mono<String> waiting = work(second).mono("c", 10);
            Disposable next = waiting.subscribe();
            Thread.sleep(100);
            assertThat(Work.calls.get()).as("the second waits").isOne();
            longOne.dispose();
            await().atMost(Duration.ofSeconds(5)).until(next::isDisposed);
            assertThat(Work.calls.get()).isEqualTo(2);
            assertThat(Work.overlaps.get()).isZero();
            await().atMost(Duration.ofSeconds(5)).until(() -> redis.commands().exists(lockKey(first, "c")) == 0);
        }));
    }

    @Test
    void anErrorReleasesTheLockAndReachesTheSubscriber() {
        runner.run(context -> {
            assertThatThrownBy(() -> work(context).fail("e").block(Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalStateException.class).hasMessage("boom");
            assertThat(redis.commands().exists(lockKey(context, "e"))).isZero();
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void notAcquiredInTimeFailsWithoutCallingTheMethod() throws Exception {
        runner.run(context -> holdingElsewhere("t", () -> {
            assertThatThrownBy(() -> work(context).quick("t").block(Duration.ofSeconds(5)))
                    .isInstanceOf(LockNotAcquiredException.class).hasMessageContaining("rx:t");
            assertThat(Work.calls.get()).as("method never called").isZero();
        }));
    }

    @Test
    void notAcquiredInTimeRunsTheFallback() throws Exception {
        runner.run(context -> holdingElsewhere("f", () -> {
            assertThat(work(context).withFallback("f").block(Duration.ofSeconds(5))).startsWith("busy f: Lock 'rx:f'");
            assertThat(Work.calls.get()).as("method never called").isZero();
        }));
    }

    @Test
    void readersShareAndAWriterExcludes() {
        runner.run(first -> runner.run(second -> {
            Flux.merge(work(first).read("rw", 200), work(second).read("rw", 200)).blockLast(Duration.ofSeconds(10));
            assertThat(Work.maxInside.get()).as("two readers at once").isEqualTo(2);
            Work.maxInside.set(0);
            Flux.merge(work(first).write("rw", 100), work(second).read("rw", 100), work(second).write("rw", 100))
                    .blockLast(Duration.ofSeconds(10));
            assertThat(Work.maxInside.get()).as("a writer alone").isOne();
        }));
    }

    @Test
    void fairMonosOfTwoApplicationsNeverOverlap() {
        runner.run(first -> runner.run(second -> {
            List<Mono<String>> calls = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                calls.add(work(i % 2 == 0 ? first : second).fair("fair", 10));
            }
            assertThat(Flux.merge(calls).collectList().block(Duration.ofSeconds(60))).hasSize(10);
            assertThat(Work.overlaps.get()).as("bodies inside at once").isZero();
            assertThat(Work.maxInside.get()).isOne();
        }));
    }

    @Test
    void aLostLockFailsAndCancelsTheRunningPublisher() {
        runner.withPropertyValues("relock.watchdog-timeout=600ms", "relock.locks.rx.max-hold=500ms").run(context -> {
            Mono<String> never = work(context).mono("lost", 60_000);
            assertThatThrownBy(() -> never.block(Duration.ofSeconds(10))).isInstanceOf(LockLostException.class)
                    .hasMessageContaining("rx:lost").hasMessageContaining("Work.mono");
            assertThat(Work.inside.get()).as("the body was cancelled").isZero();
            assertThat(redis.commands().exists(lockKey(context, "lost"))).isZero();
        });
    }

    @Test
    void tenThousandCancelledCallsLeaveNoHoldAndNoSubscription() {
        runner.run(context -> {
            RedisLockClient client = context.getBean(RedisLockClient.class);
            String channel = RelockContexts.redisKeys(context, LockNames.of("rx", "k")).releaseChannel();
            holdingElsewhere("k", () -> {
                List<Disposable> waiting = new ArrayList<>();
                for (int i = 0; i < 5_000; i++) {
                    waiting.add(work(context).quickSlow("k").subscribe(value -> { }, error -> { }));
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(channel) > 0);
                waiting.forEach(Disposable::dispose);
                await("the waits ended while the lock is still busy").atMost(Duration.ofSeconds(10))
                        .until(() -> subscribers(channel) == 0);
            });
            for (int i = 0; i < 5_000; i++) { // free now: cancelled while waiting, in the race, or while held
                work(context).quickSlow("k").subscribe(value -> { }, error -> { }).dispose();
            }
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(client.heldLocks()).isEmpty();
                assertThat(subscribers(channel)).isZero();
                assertThat(redis.commands().exists(lockKey(context, "k"))).isZero();
            });
            assertThat(Work.inside.get()).isZero();
        });
    }

    private static long subscribers(String channel) {
        return redis.commands().pubsubNumsub(channel).getOrDefault(channel, 0L);
    }

    private static void holdingElsewhere(String id, ThrowingRunnable body) throws Exception {
        ReentrantDistributedLock lock = elsewhere.getLock(LockNames.of("rx", id));
        assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
        try {
            body.run();
        }
        finally {
            lock.unlock();
        }
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static Work work(ApplicationContext context) {
        return context.getBean(Work.class);
    }

    private static String lockKey(ApplicationContext context, String id) {
        return RelockContexts.redisKeys(context, LockNames.of("rx", id)).lock();
    }

    public static class Work {

        static final AtomicInteger inside = new AtomicInteger();
        static final AtomicInteger maxInside = new AtomicInteger();
        static final AtomicInteger overlaps = new AtomicInteger();
        static final AtomicInteger calls = new AtomicInteger();

        @Autowired
        @Lazy
        Work self;

        /** Counts itself inside from subscription until it ends, however it ends. */
        private static <T> Flux<T> tracked(Flux<T> body, int maxAllowed) {
            return Flux.defer(() -> {
                int now = inside.incrementAndGet();
                maxInside.accumulateAndGet(now, Math::max);
                if (now > maxAllowed) {
                    overlaps.incrementAndGet();
                }
                // out when it signals its end (a doFinally hook runs only after the release it triggered), or
                // once a cancel has gone all the way up
                AtomicBoolean out = new AtomicBoolean();
                Runnable leave = () -> {
                    if (out.compareAndSet(false, true)) {
                        inside.decrementAndGet();
                    }
                };
                return body.doOnTerminate(leave).doFinally(signal -> leave.run());
            });
        }

        @DistributedLock(name = "rx", key = "#id")
        public Mono<String> mono(String id, long millis) {
            calls.incrementAndGet();
            return Mono.from(tracked(Mono.delay(Duration.ofMillis(millis)).thenReturn(id).flux(), 1));
        }

        /** Its cancel takes 300 ms to go up the chain; it counts as inside until then. */
        @DistributedLock(name = "rx", key = "#id")
        public Mono<String> slowToStop(String id) {
            calls.incrementAndGet();
            return Mono.from(tracked(Mono.delay(Duration.ofSeconds(10)).thenReturn(id).doOnCancel(() -> {
                try {
                    Thread.sleep(300);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }).flux(), 1));
        }

        @DistributedLock(name = "rx", key = "#id")
        public Flux<Integer> flux(String id, int count) {
            calls.incrementAndGet();
            return tracked(Flux.range(0, count).delayElements(Duration.ofMillis(5)), 1);
        }

        @DistributedLock(name = "rx", key = "#id")
        public Mono<String> outer(String id) {
            return self.mono(id, 5).map(value -> "outer " + value);
        }

        @DistributedLock(name = "rx", key = "#id")
        public Flux<String> outerFlux(String id) {
            return Flux.range(0, 2).concatMap(i -> self.mono(id, 5));
        }

        @DistributedLock(name = "rx", key = "#id")
        public Mono<String> fail(String id) {
            return Mono.delay(Duration.ofMillis(5)).then(Mono.error(new IllegalStateException("boom")));
        }

        @DistributedLock(name = "rx", key = "#id", waitTime = "100ms")
        public Mono<String> quick(String id) {
            calls.incrementAndGet();
            return Mono.just(id);
        }

        @DistributedLock(name = "rx", key = "#id", waitTime = "30s")
        public Mono<String> quickSlow(String id) {
            return Mono.from(tracked(Mono.delay(Duration.ofMillis(1)).thenReturn(id).flux(), Integer.MAX_VALUE));
        }

        @DistributedLock(name = "rx", key = "#id", waitTime = "0s", fallbackMethod = "busy")
        public Mono<String> withFallback(String id) {
            calls.incrementAndGet();
            return Mono.just(id);
        }

        public Mono<String> busy(String id, LockNotAcquiredException exception) {
            return Mono.just("busy " + id + ": " + exception.getMessage());
        }

        @DistributedLock(name = "rxfair", key = "#id", fair = true)
        public Mono<String> fair(String id, long millis) {
            return Mono.from(tracked(Mono.delay(Duration.ofMillis(millis)).thenReturn(id).flux(), 1));
        }

        @DistributedLock(name = "rxrw", key = "#id", mode = LockMode.READ)
        public Mono<String> read(String id, long millis) {
            return Mono.from(tracked(Mono.delay(Duration.ofMillis(millis)).thenReturn(id).flux(), 2));
        }

        @DistributedLock(name = "rxrw", key = "#id", mode = LockMode.WRITE)
        public Mono<String> write(String id, long millis) {
            return Mono.from(tracked(Mono.delay(Duration.ofMillis(millis)).thenReturn(id).flux(), 1));
        }
    }
}
