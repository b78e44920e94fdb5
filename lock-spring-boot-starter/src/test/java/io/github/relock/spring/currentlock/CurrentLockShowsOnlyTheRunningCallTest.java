package io.github.relock.spring.currentlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.HeldLock;
import io.github.relock.spring.CurrentLock;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@link CurrentLock} never shows a hold outside the call that has it: not to a pooled thread's next task after
 * the call threw an {@link Error}, not to the outer call once an inner one on another lock threw, not to the
 * continuation of a future on another thread; and a reactive call's parallel inner subscriptions all see its one
 * hold.
 */
@Timeout(60)
class CurrentLockShowsOnlyTheRunningCallTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Outer.class)
            .withBean(Inner.class).withPropertyValues("relock.wait-time=5s");

    @Test
    void aPooledThreadsNextTaskSeesNoHoldAfterTheCallThrewAnError() throws Exception {
        runner.run(context -> {
            Outer outer = context.getBean(Outer.class);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                assertThat(pool.submit(() -> {
                    try {
                        outer.failing("1");
                    }
                    catch (StackOverflowError expected) {
                        return "thrown";
                    }
                    return "returned";
                }).get(10, TimeUnit.SECONDS)).isEqualTo("thrown");
                assertThat(pool.submit(() -> {
                    try {
                        return "saw " + CurrentLock.get().name();
                    }
                    catch (IllegalStateException expected) {
                        return "nothing";
                    }
                }).get(10, TimeUnit.SECONDS)).isEqualTo("nothing");
            }
            finally {
                pool.shutdownNow();
            }
        });
    }

    @Test
    void theOuterCallSeesItsOwnHoldAgainAfterAnInnerCallOnAnotherLockThrew() {
        runner.run(context -> {
            List<String> seen = context.getBean(Outer.class).innerThrows("2");
            assertThat(seen).containsExactly("outer:2", "outer:2");
        });
    }

    @Test
    void aFuturesContinuationOnAnotherThreadSeesNoHold() {
        runner.run(context -> {
            String seen = context.getBean(Outer.class).laterElsewhere("3").get(10, TimeUnit.SECONDS);
            assertThat(seen).isEqualTo("nothing");
            assertThatThrownBy(CurrentLock::get).isInstanceOf(IllegalStateException.class);
        });
    }

    @Test
    void parallelInnerSubscriptionsSeeTheOneHoldOfTheCall() {
        runner.run(context -> {
            List<Long> tokens = context.getBean(Outer.class).parallel("4").collectList().block(Duration.ofSeconds(20));
            Set<Long> distinct = new HashSet<>(tokens);
            assertThat(tokens).hasSize(32);
            assertThat(distinct).hasSize(1);
        });
    }

    public static class Outer {

        @Autowired
        Inner inner;

        @DistributedLock(name = "outer", key = "#id")
        public void failing(String id) {
            recurse(0);
        }

        private static int recurse(int depth) {
            return recurse(depth + 1) + 1;
        }

        @DistributedLock(name = "outer", key = "#id")
        public List<String> innerThrows(String id) {
            String before = CurrentLock.get().name();
            try {
                inner.fails(id);
            }
            catch (IllegalArgumentException expected) {
                // the inner call is over
            }
            return List.of(before, CurrentLock.get().name());
        }

        @DistributedLock(name = "outer", key = "#id")
        public CompletableFuture<String> laterElsewhere(String id) {
            return CompletableFuture.supplyAsync(() -> sleep(100)).thenApplyAsync(ignored -> {
                try {
                    return "saw " + CurrentLock.get().name();
                }
                catch (IllegalStateException expected) {
                    return "nothing";
                }
            });
        }

        @DistributedLock(name = "outer", key = "#id")
        public Flux<Long> parallel(String id) {
            return Flux.range(0, 32).flatMap(i -> CurrentLock.mono().subscribeOn(Schedulers.parallel())
                    .delayElement(Duration.ofMillis(i % 5)).map(HeldLock::fencingToken), 8);
        }

        private static String sleep(long millis) {
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return "slept";
        }
    }

    public static class Inner {

        @DistributedLock(name = "inner", key = "#id")
        public void fails(String id) {
            assertThat(CurrentLock.get().name()).isEqualTo("inner:" + id);
            throw new IllegalArgumentException("inner fails");
        }
    }
}
