package io.github.relock.spring.returntypes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.spring.autoconfigure.RelockFailureAnalyzer;
import io.github.relock.test.RedisServerExtension;
import reactor.core.publisher.Mono;

/**
 * Return values whose work runs after the method returned, in shapes the startup check does not see as
 * asynchronous: the lock would be released before the work ran. Each must fail rather than run unlocked.
 */
@Timeout(60)
@Tag("jdk-independent")
class WorkAfterReturnTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    /** A plain {@code Future} (an executor's submit) cannot be followed without blocking a thread. */
    @Test
    @Timeout(20)
    void aMethodReturningAPlainFutureStopsStartup() {
        runner.withBean("culprit", Submitter.class).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
            assertThat(analysis.getDescription()).contains("bean 'culprit'", "method submit(String)",
                    Future.class.getName());
            assertThat(analysis.getAction()).contains("CompletableFuture");
        });
    }

    /** Declared as Object, so only the value shows that the work has not run yet: it must not run unlocked. */
    @Test
    @Timeout(20)
    void aMonoReturnedAsObjectIsRefusedBeforeItCanRunUnlocked() {
        runner.withBean(Untyped.class).run(context -> {
            Untyped untyped = context.getBean(Untyped.class);
            assertThatThrownBy(() -> {
                Object result = untyped.lazy("1");
                ((Mono<?>) result).block(); // were it returned: its body runs now, with the lock released
            }).isInstanceOf(IllegalStateException.class).hasMessageContaining("Untyped.lazy")
                    .hasMessageContaining(Mono.class.getName());
            assertThat(untyped.unlockedRuns()).as("bodies run without the lock").isZero();
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    @Timeout(20)
    void aRunningFutureReturnedAsObjectIsReported() {
        runner.withBean(Untyped.class).run(context -> {
            Untyped untyped = context.getBean(Untyped.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            assertThatThrownBy(() -> untyped.pending("2", work)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Untyped.pending").hasMessageContaining("CompletableFuture");
            assertThat(untyped.done("3")).as("a future already complete is fine").isInstanceOf(CompletableFuture.class);
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    public static class Submitter {

        private final ExecutorService executor = Executors.newSingleThreadExecutor();

        @DistributedLock(name = "job", key = "#id")
        public Future<String> submit(String id) {
            return executor.submit(() -> id);
        }
    }

    public static class Untyped {

        private final AtomicInteger unlockedRuns = new AtomicInteger();
        private final RedisLockClient client;

        public int unlockedRuns() {
            return unlockedRuns.get();
        }

        public Untyped(RedisLockClient client) {
            this.client = client;
        }

        @DistributedLock(name = "job", key = "#id")
        public Object lazy(String id) {
            return Mono.fromCallable(() -> {
                if (client.heldLocks().isEmpty()) {
                    unlockedRuns.incrementAndGet();
                }
                return id;
            });
        }

        @DistributedLock(name = "job", key = "#id")
        public Object pending(String id, CompletableFuture<String> work) {
            return work;
        }

        @DistributedLock(name = "job", key = "#id")
        public Object done(String id) {
            return CompletableFuture.completedFuture(id);
        }
    }
}
