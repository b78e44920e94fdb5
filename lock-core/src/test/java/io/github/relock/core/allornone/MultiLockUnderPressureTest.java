package io.github.relock.core.allornone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.CommandStats;
import io.github.relock.core.MultiLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;
import io.github.relock.test.TestScale;

/**
 * A multi-lock is all or none under pressure: overlapping multi-locks of several clients never share a lock, a
 * waiter interrupted or closed mid-wait leaves nothing taken, a busy plain contender does not starve it, and a
 * lease too short to take every lock in is not retried at full speed.
 */
@Timeout(90)
@Tag("redis-version-independent")
class MultiLockUnderPressureTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.newConnectionFactory()).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        Thread.interrupted();
        client.close();
        other.close();
    }

    @Test
    void overlappingMultiLocksOfSeveralClientsNeverShareALock() throws Exception {
        String[][] sets = {{"ov-a", "ov-b"}, {"ov-b", "ov-c"}, {"ov-c", "ov-a"}, {"ov-a", "ov-b", "ov-c"}};
        ConcurrentHashMap<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger rounds = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        // 4 s of contention (a quarter of that in the runs on another server or JDK)
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TestScale.of(4_000));
        for (int w = 0; w < 8; w++) {
            String[] names = sets[w % sets.length];
            RedisLockClient mine = w % 2 == 0 ? client : other;
            boolean leased = w % 3 == 0;
            workers.add(CompletableFuture.runAsync(() -> {
                MultiLock multi = mine.getMultiLock(names);
                while (System.nanoTime() < end) {
                    try {
                        if (!(leased ? multi.tryLock(1, 5, TimeUnit.SECONDS) : multi.tryLock(1, TimeUnit.SECONDS))) {
                            continue;
                        }
                    }
                    catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                    try {
                        for (String name : names) {
                            if (inside.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                        }
                        Thread.onSpinWait();
                        for (String name : names) {
                            inside.get(name).decrementAndGet();
                        }
                        rounds.incrementAndGet();
                    }
                    finally {
                        multi.unlock();
                    }
                }
            }));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        System.out.printf("overlapping multi-locks: %d rounds, %d overlaps%n", rounds.get(), overlaps.get());
        assertThat(overlaps.get()).isZero();
        assertThat(rounds.get()).isPositive();
    }

    @Test
    void aWaiterInterruptedOrClosedMidWaitLeavesNothingTaken() throws Exception {
        ReentrantDistributedLock blocker = other.getLock("mid-b");
        blocker.lock();
        AtomicReference<Thread> waiting = new AtomicReference<>();
        CompletableFuture<Boolean> interrupted = CompletableFuture.supplyAsync(() -> {
            waiting.set(Thread.currentThread());
            try {
                return client.getMultiLock("mid-a", "mid-b", "mid-c").tryLock(20, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                return false;
            }
        });
        Thread.sleep(500);
        waiting.get().interrupt();
        assertThat(interrupted.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(keysLeft("mid-a", "mid-c")).as("after an interrupt").isZero();

        RedisLockClient closing = RedisLockClient.builder(redis.newConnectionFactory()).build();
        CompletableFuture<Object> closed = CompletableFuture.supplyAsync(() -> {
            try {
                return closing.getMultiLock("mid-a", "mid-b", "mid-c").tryLock(20, TimeUnit.SECONDS);
            }
            catch (Throwable ex) {
                return ex;
            }
        });
        Thread.sleep(500);
        closing.close();
        System.out.printf("a multi-lock waiting when its client closed returned: %s%n", closed.get(10, TimeUnit.SECONDS));
        assertThat(keysLeft("mid-a", "mid-c")).as("after a close").isZero();
        blocker.unlock();
        assertThat(keysLeft("mid-a", "mid-b", "mid-c")).isZero();
    }

    @Test
    void aBusyPlainContenderDoesNotStarveAMultiLock() throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        CompletableFuture<Integer> churn = CompletableFuture.supplyAsync(() -> {
            ReentrantDistributedLock lock = other.getLock("churn-b");
            int n = 0;
            while (!done.get()) {
                lock.lock();
                try {
                    Thread.sleep(2);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                finally {
                    lock.unlock();
                }
                n++;
            }
            return n;
        });
        Thread.sleep(200);
        MultiLock multi = client.getMultiLock("churn-a", "churn-b", "churn-c");
        List<Long> waits = new ArrayList<>();
        int got = 0;
        for (int i = 0; i < 10; i++) {
            long started = System.nanoTime();
            if (multi.tryLock(3, TimeUnit.SECONDS)) {
                got++;
                multi.unlock();
            }
            waits.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        }
        done.set(true);
        System.out.printf("multi-lock against a churning plain holder: %d/10 in, ms %s; churn rounds %d%n", got, waits,
                churn.get(10, TimeUnit.SECONDS));
        assertThat(got).isEqualTo(10);
        assertThat(waits).allMatch(ms -> ms < 3300);
    }

    @Test
    void aLeaseTooShortToTakeEveryLockIsNotRetriedAtFullSpeed() throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            names.add("short-lease-" + i);
        }
        MultiLock multi = client.getMultiLock(names, null);
        long started = System.nanoTime();
        long before = CommandStats.calls(redis.commands(), "evalsha");
        boolean got = multi.tryLock(2000, 2, TimeUnit.MILLISECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        // a round takes the 40 locks and gives them back: 80 scripts
        long rounds = (CommandStats.calls(redis.commands(), "evalsha") - before) / 80;
        System.out.printf("40 free locks with a 2 ms lease: held %s after %d ms, %d rounds%n", got, ms, rounds);
        if (got) {
            multi.unlock();
        }
        assertThat(ms).as("within the wait budget").isLessThan(2300);
        // each pause at least as long as the round before, and twice the pause before: a round of 1 ms leaves room
        // for 12 in 2 s; with no pause there are a few dozen
        assertThat(rounds).as("rounds of taking every lock in a 2 s wait").isLessThanOrEqualTo(12);
    }

    private long keysLeft(String... names) {
        return redis.commands().exists(java.util.Arrays.stream(names).map(n -> client.redisKeys(n).lock())
                .toArray(String[]::new));
    }
}
