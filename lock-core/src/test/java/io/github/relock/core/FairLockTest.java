package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;
import io.github.relock.test.TestScale;
import io.lettuce.core.ScoredValue;

/** The fair lock against a real redis-server: first come, first served, and a line that never jams. */
@Timeout(180)
class FairLockTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final Contenders contenders = Contenders.onTheSharedFactory(redis);

    /** The waiting line as Redis keeps it (layout: line.lua): owner id to arrival number. */
    static String line(ReentrantDistributedLock lock) {
        return lock.getKey() + ":line";
    }

    @Test
    void waitersOfFourClientsGetTheLockInTheOrderRedisReceivedThem() throws Exception {
        RedisLockClient holderClient = contenders.newClient();
        ReentrantDistributedLock held = holderClient.getFairLock("report:daily");
        held.lock();
        List<RedisLockClient> waiting = List.of(contenders.newClient(), contenders.newClient(), contenders.newClient(),
                contenders.newClient());
        List<String> entered = new CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            RedisLockClient client = waiting.get(i % 4);
            String who = "waiter-" + i;
            waiters.add(contenders.pool().submit(() -> {
                ReentrantDistributedLock lock = client.getFairLock("report:daily");
                assertThat(lock.tryLock(30, TimeUnit.SECONDS)).isTrue();
                entered.add(who);
                Thread.sleep(5);
                lock.unlock();
                return null;
            }));
            long inLine = i + 1;
            while (redis.commands().zcard(line(held)) < inLine) {
                Thread.sleep(1); // this one's first attempt reached Redis: the next may start
            }
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            expected.add("waiter-" + i);
        }
        held.unlock();
        for (Future<?> waiter : waiters) {
            waiter.get(30, TimeUnit.SECONDS);
        }
        assertThat(entered).containsExactlyElementsOf(expected);
        assertThat(redis.commands().exists(line(held))).as("the line is gone with its last waiter").isZero();
    }

    /**
     * 4 clients x 4 threads take the lock 10,000 times (a quarter of that in the runs on another server or JDK). Before each attempt a thread reads the line from Redis:
     * whoever waited then came first, so none of them may still wait once this thread has the lock.
     */
    @Test
    void noWaiterIsPassedOverUnderContention() throws Exception {
        String lineKey = line(contenders.newClient().getFairLock("fifo"));
        AtomicLong acquisitions = new AtomicLong();
        AtomicLong queuedBefore = new AtomicLong();
        AtomicLong violations = new AtomicLong();
        AtomicInteger inside = new AtomicInteger();
        AtomicLong overlaps = new AtomicLong();
        int wanted = TestScale.of(10_000);
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            RedisLockClient client = contenders.newClient();
            for (int t = 0; t < 4; t++) {
                workers.add(contenders.pool().submit(() -> {
                    ReentrantDistributedLock lock = client.getFairLock("fifo");
                    while (acquisitions.get() < wanted) {
                        Map<String, Double> ahead = new HashMap<>();
                        for (ScoredValue<String> waiter : redis.commands().zrangeWithScores(lineKey, 0, -1)) {
                            ahead.put(waiter.getValue(), waiter.getScore());
                        }
                        assertThat(lock.tryLock(30, TimeUnit.SECONDS)).isTrue();
                        try {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            queuedBefore.addAndGet(ahead.size());
                            for (ScoredValue<String> waiter : redis.commands().zrangeWithScores(lineKey, 0, -1)) {
                                if (Double.valueOf(waiter.getScore()).equals(ahead.get(waiter.getValue()))) {
                                    violations.incrementAndGet(); // it waited before this thread asked
                                }
                            }
                            acquisitions.incrementAndGet();
                            inside.decrementAndGet();
                        }
                        finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<?> worker : workers) {
            worker.get(150, TimeUnit.SECONDS);
        }
        assertThat(overlaps.get()).isZero();
        assertThat(acquisitions.get()).isGreaterThanOrEqualTo(wanted);
        assertThat(queuedBefore.get()).as("waiters ahead, summed over all acquisitions").isGreaterThan(wanted);
        assertThat(violations.get()).as("waiters passed over").isZero();
    }

    /** close() ends the wait; the waiter's last word (leaving the line) goes out without a blocking round trip. */
    @Test
    void aWaiterOfAClosedClientLeavesTheLine() throws Exception {
        ReentrantDistributedLock held = contenders.newClient().getFairLock("closing");
        held.lock();
        RedisLockClient closing = contenders.newClient();
        Future<Object> waiter = contenders.pool().submit(() -> {
            try {
                return closing.getFairLock("closing").tryLock(30, TimeUnit.SECONDS);
            }
            catch (IllegalStateException ex) {
                return ex;
            }
        });
        while (redis.commands().zcard(line(held)) < 1) {
            Thread.sleep(1);
        }
        closing.close();
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1); // well before its place would lapse (3 s)
        while (redis.commands().zcard(line(held)) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(redis.commands().zrange(line(held), 0, -1)).as("the closed client's place").isEmpty();
    }

    @Test
    void aWaiterThatGivesUpLeavesTheLineAtOnce() throws Exception {
        ReentrantDistributedLock held = contenders.newClient().getFairLock("quitter");
        held.lock();
        RedisLockClient other = contenders.newClient();
        Future<Boolean> quitter = contenders.pool()
                .submit(() -> other.getFairLock("quitter").tryLock(300, TimeUnit.MILLISECONDS));
        while (redis.commands().zcard(line(held)) < 1) {
            Thread.sleep(1);
        }
        Future<Long> next = contenders.pool().submit(() -> {
            ReentrantDistributedLock lock = other.getFairLock("quitter");
            assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
            long in = System.nanoTime();
            lock.unlock();
            return in;
        });
        assertThat(quitter.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(redis.commands().zcard(line(held))).as("only the second waiter is left").isEqualTo(1);
        long released = System.nanoTime();
        held.unlock();
        assertThat(Duration.ofNanos(next.get(10, TimeUnit.SECONDS) - released)).isLessThan(Duration.ofSeconds(1));
    }

    /** One owner waiting on two threads keeps its place when one of them gives up. */
    @Test
    void anOwnerWaitingOnTwoThreadsKeepsItsPlaceWhenOneGivesUp() throws Exception {
        ReentrantDistributedLock held = contenders.newClient().getFairLock("shared-owner");
        held.lock();
        RedisLockClient client = contenders.newClient();
        LockOwner owner = client.newOwner();
        Future<Boolean> impatient = contenders.pool().submit(() -> client.getFairLock("shared-owner", owner)
                .tryLock(300, TimeUnit.MILLISECONDS));
        while (redis.commands().zcard(line(held)) < 1) {
            Thread.sleep(1);
        }
        List<String> entered = new CopyOnWriteArrayList<>();
        Future<?> patient = contenders.pool()
                .submit(() -> lockAndNote(client.getFairLock("shared-owner", owner), "owner", entered));
        RedisLockClient later = contenders.newClient();
        Future<?> next = contenders.pool()
                .submit(() -> lockAndNote(later.getFairLock("shared-owner"), "later", entered));
        while (redis.commands().zcard(line(held)) < 2) {
            Thread.sleep(1);
        }
        assertThat(impatient.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(redis.commands().zcard(line(held))).as("the owner still waits on another thread").isEqualTo(2);
        held.unlock();
        patient.get(10, TimeUnit.SECONDS);
        next.get(10, TimeUnit.SECONDS);
        assertThat(entered).containsExactly("owner", "later");
    }

    private static Void lockAndNote(ReentrantDistributedLock lock, String who, List<String> entered)
            throws InterruptedException {
        assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
        entered.add(who);
        Thread.sleep(20);
        lock.unlock();
        return null;
    }

    @Test
    void aWaiterThatDiedHoldsTheLineForAtMostItsPlace() throws Exception {
        ReentrantDistributedLock lock = contenders.newClient().getFairLock("ghost");
        // what a waiter that died leaves behind (layout: line.lua): a place that is kept 3 s from now
        List<String> time = redis.commands().time();
        long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        redis.commands().zadd(line(lock), 1, "dead-client:1");
        redis.commands().hset(lock.getKey() + ":places", Map.of("dead-client:1", String.valueOf(now + 3_000), "#", "1"));
        assertThat(lock.tryLock()).as("a free lock is the head's").isFalse();
        long started = System.nanoTime();
        assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("within the place's 3 s, plus a retry")
                .isLessThan(Duration.ofMillis(4_500));
        lock.unlock();
    }

    @Test
    void reentersAndCountsLikeTheExclusiveLock() throws Exception {
        RedisLockClient client = contenders.newClient();
        ReentrantDistributedLock lock = client.getFairLock("nested");
        lock.lock();
        long token = lock.fencingToken();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.fencingToken()).isEqualTo(token);
        assertThat(contenders.pool().submit(() -> client.getFairLock("nested").tryLock()).get()).isFalse();
        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        lock.lock();
        assertThat(lock.fencingToken()).isGreaterThan(token);
        lock.unlock();
        assertThat(client.getLock("nested").tryLock()).as("apart from the exclusive lock of the same name").isTrue();
        client.getLock("nested").unlock();
    }

    @Test
    void aFixedLeaseEndsTheHoldAndTheNextInLineGetsIn() throws Exception {
        ReentrantDistributedLock crashed = contenders.newClient().getFairLock("lease");
        assertThat(crashed.tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue(); // never released
        ReentrantDistributedLock next = contenders.newClient().getFairLock("lease");
        long started = System.nanoTime();
        assertThat(next.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
        next.unlock();
    }
}
