package io.github.relock.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Lazy;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/** Methods returning a CompletableFuture hold their lock until the future completes, not until they return. */
@Timeout(60)
class CompletionStageTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisLockClient elsewhere;

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Jobs.class);

    @BeforeAll
    static void startOtherInstance() {
        elsewhere = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterAll
    static void stopOtherInstance() {
        elsewhere.close();
    }

    @Test
    void theLockIsHeldUntilTheFutureCompletes() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            RedisLockClient client = context.getBean(RedisLockClient.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = jobs.run("7", work);

            assertThat(result).isNotDone();
            assertThat(redis.commands().exists(jobLock(context, "7"))).as("held after the method returned").isOne();
            assertThat(elsewhere.getLock(LockNames.of("job", "7")).tryLock(0, TimeUnit.SECONDS)).isFalse();
            assertThat(client.heldLocks()).singleElement().extracting(HeldLock::ownerThread)
                    .as("owned by an explicit owner, not the calling thread").isNull();

            work.complete("done"); // completes on this thread; the release happens before result completes
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(redis.commands().exists(jobLock(context, "7"))).isZero();
        });
    }

    @Test
    void theLockIsReleasedWhenTheFutureCompletesOnAnotherThread() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = jobs.run("8", work);
            CompletableFuture.runAsync(() -> work.complete("elsewhere")).get(10, TimeUnit.SECONDS);
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("elsewhere");
            assertThat(redis.commands().exists(jobLock(context, "8"))).isZero();
        });
    }

    @Test
    void theLockIsReleasedWhenTheFutureFails() {
        runner.run(context -> {
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletionStage<String> result = context.getBean(Jobs.class).stage("9", work);
            work.completeExceptionally(new IllegalStateException("boom"));
            assertThatThrownBy(() -> result.toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasRootCauseMessage("boom");
            assertThat(redis.commands().exists(jobLock(context, "9"))).isZero();
        });
    }

    @Test
    void theLockIsReleasedAtOnceWhenTheMethodThrows() {
        runner.run(context -> {
            assertThatThrownBy(() -> context.getBean(Jobs.class).failAtOnce("10")).hasMessage("no future");
            assertThat(redis.commands().exists(jobLock(context, "10"))).isZero();
        });
    }

    /**
     * CompletableFuture.cancel completes the future without stopping the work behind it: the lock must
     * stay until the work really ends, whatever the caller does with the returned future.
     */
    @Test
    void cancellingTheResultNeverLetsTwoBodiesOverlap() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<String> first = jobs.slow("12", 600);
            assertThat(first.cancel(true)).isTrue();
            assertThat(redis.commands().exists(jobLock(context, "12"))).as("still held while the work runs").isOne();
            CompletableFuture<String> second = jobs.slow("12", 10);
            assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("slept 10");
            assertThat(jobs.overlaps()).as("bodies inside at once").isZero();
            assertThat(jobs.maxInside()).isOne();
            await().atMost(Duration.ofSeconds(5)).until(() -> redis.commands().exists(jobLock(context, "12")) == 0);
        });
    }

    @Test
    void theLockOfACancelledResultIsReleasedWhenTheWorkEnds() {
        runner.run(context -> {
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = context.getBean(Jobs.class).run("11", work);
            result.cancel(true);
            assertThat(work).as("the work is the method's, not the caller's to stop").isNotDone();
            assertThat(redis.commands().exists(jobLock(context, "11"))).isOne();
            work.complete("finished anyway");
            assertThat(redis.commands().exists(jobLock(context, "11"))).isZero();
        });
    }

    /** A synchronous locked call that calls an asynchronous one on the same lock would wait for itself. */
    @Test
    void anAsyncCallInsideASyncCallOnTheSameLockFailsAtOnceAndSaysWhy() {
        runner.withPropertyValues("relock.wait-time=5s").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            long started = System.nanoTime();
            assertThatThrownBy(() -> jobs.syncThenAsync("13")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("job:13").hasMessageContaining("already holds")
                    .hasMessageContaining("CompletionStage");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("not the 5 s wait")
                    .isLessThan(2_000);
            assertThat(redis.commands().exists(jobLock(context, "13"))).isZero();
        });
    }

    @Test
    void aFutureThatNeverCompletesLosesItsLockAfterTheMaximumHoldTime() {
        runner.withPropertyValues("relock.watchdog-timeout=600ms", "relock.locks.job.max-hold=500ms").run(context -> {
            CompletableFuture<String> never = new CompletableFuture<>();
            CompletableFuture<String> result = context.getBean(Jobs.class).run("14", never);
            await().atMost(Duration.ofSeconds(5)).until(() -> redis.commands().exists(jobLock(context, "14")) == 0);
            assertThat(result).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
                    .havingRootCause().isInstanceOf(LockLostException.class).withMessageContaining("job:14");
            never.complete("too late");
        });
    }

    /** The Redis key of the lock a {@code Jobs} method takes for job {@code id}. */
    private static String jobLock(ApplicationContext context, String id) {
        return RelockContexts.redisKeys(context, LockNames.of("job", id)).lock();
    }

    public static class Jobs {

        @DistributedLock(name = "job", key = "#id")
        public CompletableFuture<String> run(String id, CompletableFuture<String> work) {
            return work;
        }

        @DistributedLock(name = "job", key = "#id")
        public CompletionStage<String> stage(String id, CompletableFuture<String> work) {
            return work.thenApply(value -> value);
        }

        @DistributedLock(name = "job", key = "#id")
        public CompletableFuture<String> failAtOnce(String id) {
            throw new IllegalStateException("no future");
        }

        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger maxInside = new AtomicInteger();
        private final AtomicInteger overlaps = new AtomicInteger();

        public int overlaps() {
            return overlaps.get();
        }

        public int maxInside() {
            return maxInside.get();
        }

        /** Work on another thread, as an @Async method's: cancelling its future does not stop it. */
        @DistributedLock(name = "job", key = "#id")
        public CompletableFuture<String> slow(String id, long millis) {
            return CompletableFuture.supplyAsync(() -> {
                int now = inside.incrementAndGet();
                maxInside.accumulateAndGet(now, Math::max);
                if (now > 1) {
                    overlaps.incrementAndGet();
                }
                try {
                    Thread.sleep(millis);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                inside.decrementAndGet();
                return "slept " + millis;
            });
        }

        @Autowired
        @Lazy
        Jobs self;

        @DistributedLock(name = "job", key = "#id")
        public String syncThenAsync(String id) throws Exception {
            return self.run(id, CompletableFuture.completedFuture("inner")).get();
        }
    }
}
