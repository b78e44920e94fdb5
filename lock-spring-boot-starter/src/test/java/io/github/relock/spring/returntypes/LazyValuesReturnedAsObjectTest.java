package io.github.relock.spring.returntypes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * A stream or an iterator returned through a type that does not show it (a generic {@code <T> T}, or
 * {@code Object}) would produce its elements after the release, unlocked: the call is refused instead, as a
 * stream declared as the return type stops startup.
 */
@Timeout(60)
class LazyValuesReturnedAsObjectTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Batches.class)
            .withPropertyValues("relock.wait-time=30s");

    @Test
    void aStreamReturnedThroughAGenericTypeIsRefused() {
        runner.run(context -> {
            Batches batches = context.getBean(Batches.class);
            assertThatThrownBy(() -> batches.locked(() -> Stream.of(1, 2).map(i -> i * 2)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("Batches.locked");
            assertThatThrownBy(() -> batches.locked(() -> List.of(1).iterator()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("Batches.locked");
            assertThat(batches.locked(() -> List.of(1, 2))).as("a collected value is fine").isEqualTo(List.of(1, 2));
            assertThat(context.getBean(RedisLockClient.class).heldLocks()).isEmpty();
        });
    }

    /** 8 threads x 20 calls on one lock, each consuming the stream the locked call returned. */
    @Test
    void streamWorkNeverOverlaps() {
        runner.run(context -> {
            Batches batches = context.getBean(Batches.class);
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> calls = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    calls.add(pool.submit(() -> {
                        for (int i = 0; i < 20; i++) {
                            try {
                                Stream<Integer> stream = batches.locked(() -> IntStream.range(0, 3).boxed().map(n -> {
                                    if (inside.incrementAndGet() > 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    sleep();
                                    inside.decrementAndGet();
                                    return n;
                                }));
                                stream.toList();
                            }
                            catch (IllegalStateException refused) {
                                // refused: its work never ran
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> call : calls) {
                    call.get(50, TimeUnit.SECONDS);
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(overlaps.get()).as("stream elements produced by two callers at once").isZero();
        });
    }

    private static void sleep() {
        try {
            Thread.sleep(1);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    public static class Batches {

        @DistributedLock(name = "batches")
        public <T> T locked(Supplier<T> work) {
            return work.get();
        }
    }
}
