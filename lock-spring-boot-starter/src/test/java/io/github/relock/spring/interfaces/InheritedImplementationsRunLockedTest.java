package io.github.relock.spring.interfaces;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * A {@code @DistributedLock} on a generic interface method runs locked when the bean inherits the implementation
 * from a base class that does not implement the interface (through the compiler's bridge method), with a class
 * proxy and with an interface proxy: 8 threads x 20 calls on one key never overlap.
 */
@Timeout(60)
class InheritedImplementationsRunLockedTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    static final AtomicInteger INSIDE = new AtomicInteger();
    static final AtomicInteger OVERLAPS = new AtomicInteger();
    static final AtomicInteger RUNS = new AtomicInteger();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Impl.class)
            .withPropertyValues("relock.wait-time=30s");

    @Test
    void aGenericInterfaceMethodImplementedInABaseClassRunsLockedThroughAClassProxy() {
        runner.run(context -> hammer(context.getBean(Handler.class)));
    }

    @Test
    void aGenericInterfaceMethodImplementedInABaseClassRunsLockedThroughAnInterfaceProxy() {
        runner.withPropertyValues("spring.aop.proxy-target-class=false").run(context -> hammer(context.getBean(Handler.class)));
    }

    @SuppressWarnings("unchecked")
    private static void hammer(Handler<String> handler) throws Exception {
        INSIDE.set(0);
        OVERLAPS.set(0);
        RUNS.set(0);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                calls.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        handler.handle("one");
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
        assertThat(RUNS.get()).isEqualTo(160);
        assertThat(OVERLAPS.get()).as("calls inside at once").isZero();
    }

    public interface Handler<T> {

        @DistributedLock(name = "handled", key = "#p0")
        void handle(T value);
    }

    public static class BaseHandler implements Consumer<String> {

        public void handle(String value) {
            if (INSIDE.incrementAndGet() > 1) {
                OVERLAPS.incrementAndGet();
            }
            try {
                Thread.sleep(1);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            INSIDE.decrementAndGet();
            RUNS.incrementAndGet();
        }

        @Override
        public void accept(String value) {
        }
    }

    public static class Impl extends BaseHandler implements Handler<String> {
    }
}
