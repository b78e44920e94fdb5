package io.github.relock.spring.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;

import io.github.relock.core.LockNames;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/**
 * Two application instances on one Redis, calls that nest and throw, and a context closed under calls that
 * wait and hold: never two bodies at once, nothing left held, nothing stuck.
 */
@Timeout(60)
@Tag("jdk-independent")
class InstancesAndShutdownTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final AtomicInteger inside = new AtomicInteger();
    private static final AtomicInteger overlaps = new AtomicInteger();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean(Counter.class)
            .withPropertyValues("relock.wait-time=20s");
    private final ExecutorService threads = Executors.newFixedThreadPool(8);

    @AfterEach
    void stopThreads() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /** Nested re-entry and every kind of throwable, from two instances at once: bodies never overlap. */
    @Test
    @Timeout(30)
    void twoInstancesNeverOverlapWhateverTheBodiesThrow() {
        runner.run(first -> runner.run(second -> {
            inside.set(0);
            overlaps.set(0);
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Counter counter = (t % 2 == 0 ? first : second).getBean(Counter.class);
                int seed = t;
                calls.add(threads.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        try {
                            counter.outer("k", (seed + i) % 5);
                        }
                        catch (Throwable expected) {
                            assertThat(expected).isNotInstanceOf(LockNotAcquiredException.class);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(25, TimeUnit.SECONDS);
            }
            assertThat(overlaps.get()).as("bodies inside at once").isZero();
            assertThat(first.getBean(RedisLockClient.class).heldLocks()).isEmpty();
            assertThat(second.getBean(RedisLockClient.class).heldLocks()).isEmpty();
            assertThat(redis.commands().exists(RelockContexts.redisKeys(first, LockNames.of("count", "k")).lock()))
                    .isZero();
        }));
    }

    /** Closing the context ends a waiting call at once and without running it; the holder's lock goes. */
    @Test
    @Timeout(20)
    void closingTheContextEndsWaitersAndHoldersPromptly() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicInteger waiterRan = new AtomicInteger();
        List<Future<?>> calls = new ArrayList<>();
        String[] clientId = new String[1];
        String[] lockKey = new String[1];
        // the holder is let go only after the close: the client waits this long for it, then closes anyway
        runner.withPropertyValues("relock.watchdog-timeout=2s", "spring.lifecycle.timeout-per-shutdown-phase=500ms")
                .run(context -> {
            Counter counter = context.getBean(Counter.class);
            clientId[0] = context.getBean(RedisLockClient.class).getClientId();
            lockKey[0] = RelockContexts.redisKeys(context, LockNames.of("count", "close")).lock();
            calls.add(threads.submit(() -> counter.hold("close", holding, letGo)));
            assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
            calls.add(threads.submit(() -> {
                counter.hold("close", new CountDownLatch(1), new CountDownLatch(0));
                waiterRan.incrementAndGet();
                return null;
            }));
            Thread.sleep(300); // the second call is waiting now
        });
        long closed = System.nanoTime();
        Throwable waiterOutcome = null;
        try {
            calls.get(1).get(5, TimeUnit.SECONDS);
        }
        catch (java.util.concurrent.ExecutionException ex) {
            waiterOutcome = ex.getCause();
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed)).as("the waiter ends with the context")
                .isLessThan(3_000);
        assertThat(waiterRan.get()).as("the waiter's body ran after the close").isZero();
        assertThat(waiterOutcome).isNotNull();
        letGo.countDown();
        try {
            calls.get(0).get(5, TimeUnit.SECONDS);
        }
        catch (java.util.concurrent.ExecutionException ignored) {
            // the release after close may fail; the lock then ends with its lease
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.commands().exists(lockKey[0]) == 0);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.isAlive() && t.getName().contains(clientId[0]));
    }

    /** A body that leaves its thread interrupted (or is interrupted as it ends) must still give the lock back. */
    @Test
    @Timeout(20)
    void aBodyThatLeavesItsThreadInterruptedStillReleases() {
        ApplicationContextRunner noWait = runner.withPropertyValues("relock.wait-time=0s");
        noWait.run(first -> noWait.run(second -> {
            for (int i = 0; i < 20; i++) {
                assertThat(first.getBean(Counter.class).interruptSelf("intr")).isEqualTo("intr");
                assertThat(Thread.interrupted()).as("the interrupt is the caller's to see").isTrue();
                assertThat(first.getBean(RedisLockClient.class).heldLocks()).isEmpty();
                assertThat(second.getBean(Counter.class).hold("intr", new CountDownLatch(1), new CountDownLatch(0)))
                        .as("free for the other instance at once").isEqualTo("intr");
            }
        }));
    }

    public static class Counter {

        @DistributedLock(name = "count", key = "#id")
        public String interruptSelf(String id) {
            Thread.currentThread().interrupt();
            return id;
        }

        @Autowired
        @Lazy
        Counter self;

        @DistributedLock(name = "count", key = "#id")
        public void outer(String id, int how) throws Exception {
            enter();
            try {
                self.inner(id, how);
            }
            finally {
                inside.decrementAndGet();
            }
        }

        @DistributedLock(name = "count", key = "#id")
        public void inner(String id, int how) throws Exception {
            Thread.sleep(1);
            switch (how) {
                case 1 -> throw new java.io.IOException("checked");
                case 2 -> throw new IllegalArgumentException("runtime");
                case 3 -> throw new AssertionError("error");
                case 4 -> throw new StackOverflowError("pretend");
                default -> {
                }
            }
        }

        @DistributedLock(name = "count", key = "#id")
        public Object hold(String id, CountDownLatch holding, CountDownLatch letGo) throws InterruptedException {
            holding.countDown();
            letGo.await(10, TimeUnit.SECONDS);
            return id;
        }

        private static void enter() {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
        }
    }
}
