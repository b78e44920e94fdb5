package io.github.relock.spring.returntypes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;

import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * A method returning a CompletableFuture holds its lock under the future's owner, not the thread. A nested
 * locked call on the same key made from its body, on the same thread, would wait for that owner, which cannot
 * let go until the body has returned: it must fail at once and say why, not wait out its wait time and report
 * a busy lock.
 */
@Timeout(60)
@Tag("jdk-independent")
class AsyncNestingTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Jobs.class)
            .withPropertyValues("relock.wait-time=4s");

    @Test
    @Timeout(20)
    void anAsyncCallInsideAnAsyncBodyOnTheSameLockFailsAtOnce() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            long started = System.nanoTime();
            assertThatThrownBy(() -> jobs.asyncThenAsync("1")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("job:1").hasMessageContaining("already holds");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("not the 4 s wait")
                    .isLessThan(2_000);
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    @Test
    @Timeout(20)
    void aSyncCallInsideAnAsyncBodyOnTheSameLockFailsAtOnce() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            long started = System.nanoTime();
            assertThatThrownBy(() -> jobs.asyncThenSync("2")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("job:2").hasMessageContaining("already holds");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("not the 4 s wait")
                    .isLessThan(2_000);
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    /** Other keys, and the same key once the body has returned (a callback on another thread), still work. */
    @Test
    @Timeout(20)
    void otherKeysAndLaterCallsAreNotRefused() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.asyncThenOtherKey("3")).succeedsWithin(java.time.Duration.ofSeconds(5)).isEqualTo("3-other");
            assertThat(jobs.async("4").thenComposeAsync(ignored -> jobs.async("4")))
                    .succeedsWithin(java.time.Duration.ofSeconds(5)).isEqualTo("4");
            assertThat(jobs.sync("5")).isEqualTo("5");
        });
    }

    public static class Jobs {

        @Autowired
        @Lazy
        Jobs self;

        @DistributedLock(name = "job", key = "#id")
        public CompletableFuture<String> async(String id) {
            return CompletableFuture.completedFuture(id);
        }

        @DistributedLock(name = "job", key = "#id")
        public String sync(String id) {
            return id;
        }

        @DistributedLock(name = "job", key = "#id")
        public CompletableFuture<String> asyncThenAsync(String id) {
            return self.async(id);
        }

        @DistributedLock(name = "job", key = "#id")
        public CompletableFuture<String> asyncThenSync(String id) {
            return CompletableFuture.completedFuture(self.sync(id));
        }

        @DistributedLock(name = "job", key = "#id")
        public CompletableFuture<String> asyncThenOtherKey(String id) {
            return self.async(id + "-other");
        }
    }
}
