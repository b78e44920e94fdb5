package io.github.relock.benchmarks.jmh;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * What a nested {@code @DistributedLock} call on the same key costs, on a redis-server of
 * its own. {@code payWith*}: a locked outer call whose inner call is annotated too (it re-enters) or is the
 * same method without the annotation; the target is a ratio of at most 1.1. {@code whileHeld*}: the inner
 * call alone, made while this thread holds the lock, and the API's re-entry pair: their cost in the JVM.
 *
 * <p>{@code java -cp lock-benchmarks/target/lock-benchmarks.jar org.openjdk.jmh.Main NestedLockBenchmark}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class NestedLockBenchmark {

    private static final String ORDER = "42";

    /** The server and the context, shared by every thread of a run. */
    @State(Scope.Benchmark)
    public static class Services {

        RedisServer server;
        AnnotationConfigApplicationContext spring;
        NestedCalls calls;
        NestedCalls.Inventory inventory;
        RedisLockClient client;

        @Setup(Level.Trial)
        public void start() {
            server = RedisServer.start();
            NestedContext.redis = new RedisStandaloneConfiguration(server.host(), server.port());
            spring = new AnnotationConfigApplicationContext(NestedContext.class);
            calls = spring.getBean(NestedCalls.class);
            inventory = spring.getBean(NestedCalls.Inventory.class);
            client = spring.getBean(RedisLockClient.class);
        }

        @TearDown(Level.Trial)
        public void stop() {
            spring.close();
            server.close();
        }
    }

    /** The order's lock, held by the measuring thread for a whole iteration (set up on that thread). */
    @State(Scope.Thread)
    public static class Held {

        ReentrantDistributedLock lock;

        @Setup(Level.Iteration)
        public void take(Services services) {
            lock = services.client.getLock(LockNames.of("order", ORDER));
            lock.lock();
        }

        @TearDown(Level.Iteration)
        public void release() {
            lock.unlock();
        }
    }

    @Benchmark
    public long payWithLockedReserve(Services services) {
        return services.calls.payWithLockedReserve(ORDER);
    }

    @Benchmark
    public long payWithPlainReserve(Services services) {
        return services.calls.payWithPlainReserve(ORDER);
    }

    @Benchmark
    public long whileHeldLockedReserve(Services services, Held held) {
        return services.inventory.reserve(ORDER);
    }

    @Benchmark
    public long whileHeldPlainReserve(Services services, Held held) {
        return services.inventory.reservePlain(ORDER);
    }

    @Benchmark
    public int whileHeldLockUnlock(Held held) {
        held.lock.lock();
        held.lock.unlock();
        return 1;
    }
}
