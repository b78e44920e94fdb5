package io.github.relock.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.HeldLock;
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
            assertThat(redis.commands().exists("lock:{job:7}")).as("held after the method returned").isOne();
            assertThat(elsewhere.getLock("job:7").tryLock(0, TimeUnit.SECONDS)).isFalse();
            assertThat(client.heldLocks()).singleElement().extracting(HeldLock::ownerThread)
                    .as("owned by an explicit owner, not the calling thread").isNull();

            work.complete("done"); // completes on this thread; the release happens before result completes
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
            assertThat(redis.commands().exists("lock:{job:7}")).isZero();
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
            assertThat(redis.commands().exists("lock:{job:8}")).isZero();
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
            assertThat(redis.commands().exists("lock:{job:9}")).isZero();
        });
    }

    @Test
    void theLockIsReleasedAtOnceWhenTheMethodThrows() {
        runner.run(context -> {
            assertThatThrownBy(() -> context.getBean(Jobs.class).failAtOnce("10")).hasMessage("no future");
            assertThat(redis.commands().exists("lock:{job:10}")).isZero();
        });
    }

    @Test
    void cancellingTheResultCancelsTheWorkAndReleases() {
        runner.run(context -> {
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> result = context.getBean(Jobs.class).run("11", work);
            result.cancel(true);
            assertThat(work).isCancelled();
            assertThat(redis.commands().exists("lock:{job:11}")).isZero();
        });
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
    }
}
