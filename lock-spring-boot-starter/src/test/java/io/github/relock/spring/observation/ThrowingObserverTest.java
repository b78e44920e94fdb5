package io.github.relock.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockObserver;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;
import reactor.core.publisher.Mono;

/**
 * A {@link LockObserver} bean (metrics, tracing) that throws must not change what a locked call does: the
 * lock is given back, the caller gets the method's own result or exception, and nothing hangs.
 */
@Timeout(60)
@Tag("jdk-independent")
class ThrowingObserverTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Jobs.class)
            .withPropertyValues("relock.wait-time=1s");

    /** Fails at the step named {@code where}: "acquired" or "released". */
    static LockObserver failingAt(String where) {
        return lockName -> new LockObserver.Acquisition() {
            @Override
            public LockObserver.Hold acquired() {
                if (where.equals("acquired")) {
                    throw new IllegalStateException("observer broke on acquired");
                }
                return error -> {
                    throw new AssertionError("observer broke on released");
                };
            }

            @Override
            public void notAcquired() {
            }

            @Override
            public void failed(Throwable error) {
            }
        };
    }

    @Test
    @Timeout(20)
    void anObserverFailingOnAcquiredLeavesNoLockBehindASynchronousCall() {
        runner.withBean(LockObserver.class, () -> failingAt("acquired")).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.sync("1")).as("the observer's failure is not the caller's").isEqualTo("sync 1");
            assertNothingHeld(context, "1");
        });
    }

    @Test
    @Timeout(20)
    void anObserverFailingOnReleasedDoesNotReplaceTheMethodsException() {
        runner.withBean(LockObserver.class, () -> failingAt("released")).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThatThrownBy(() -> jobs.syncFailing("2")).isInstanceOf(IOException.class).hasMessage("disk full");
            assertThat(jobs.sync("2")).isEqualTo("sync 2");
            assertNothingHeld(context, "2");
        });
    }

    @Test
    @Timeout(20)
    void anObserverFailingOnAcquiredNeitherHangsNorLeaksAMono() {
        runner.withBean(LockObserver.class, () -> failingAt("acquired")).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.mono("3").block(Duration.ofSeconds(5))).isEqualTo("mono 3");
            assertNothingHeld(context, "3");
        });
    }

    @Test
    @Timeout(20)
    void anObserverFailingOnReleasedStillCompletesTheCallersFuture() {
        runner.withBean(LockObserver.class, () -> failingAt("released")).run(context -> {
            CompletableFuture<String> result = context.getBean(Jobs.class).async("4");
            assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("async 4");
            assertNothingHeld(context, "4");
        });
    }

    /** One observer's failure must not keep the others from hearing of the call (a meter's gauge would stick). */
    @Test
    @Timeout(20)
    void theOtherObserversStillHearOfEveryStep() {
        List<String> heard = new CopyOnWriteArrayList<>();
        LockObserver listening = lockName -> new LockObserver.Acquisition() {
            @Override
            public LockObserver.Hold acquired() {
                heard.add("acquired");
                return error -> heard.add("released");
            }

            @Override
            public void notAcquired() {
                heard.add("notAcquired");
            }

            @Override
            public void failed(Throwable error) {
                heard.add("failed");
            }
        };
        runner.withBean("failing", LockObserver.class, () -> failingAt("acquired"))
                .withBean("listening", LockObserver.class, () -> listening).run(context -> {
                    assertThat(context.getBean(Jobs.class).sync("5")).isEqualTo("sync 5");
                    assertThat(heard).containsExactly("acquired", "released");
                    assertNothingHeld(context, "5");
                });
    }

    private static void assertNothingHeld(ApplicationContext context, String id) {
        assertThat(context.getBean(RedisLockClient.class).heldLocks()).as("holds left in the client").isEmpty();
        assertThat(redis.commands().exists(RelockContexts.redisKeys(context, LockNames.of("job", id)).lock()))
                .as("lock left in Redis").isZero();
    }

    public static class Jobs {

        @DistributedLock(name = "job", key = "#id")
        public String sync(String id) {
            return "sync " + id;
        }

        @DistributedLock(name = "job", key = "#id")
        public String syncFailing(String id) throws IOException {
            throw new IOException("disk full");
        }

        @DistributedLock(name = "job", key = "#id")
        public Mono<String> mono(String id) {
            return Mono.just("mono " + id);
        }

        @DistributedLock(name = "job", key = "#id")
        public CompletableFuture<@Nullable String> async(String id) {
            return CompletableFuture.supplyAsync(() -> "async " + id);
        }
    }
}
