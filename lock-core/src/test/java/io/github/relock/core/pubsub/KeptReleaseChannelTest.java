package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Subscribers;
import io.github.relock.test.RedisServerExtension;

/**
 * A client keeps a lock's release channel subscribed a moment (500 ms) after its last waiter of that lock left: a
 * waiter that comes back meanwhile joins it at once and must still be woken by the next release (whatever the kind,
 * blocking or asynchronous, even after the pub/sub connection was killed), and once nobody waits the channels go,
 * one subscription per channel at most, none after close().
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class KeptReleaseChannelTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** A wake-up lost would leave the waiter asleep until the holder's 20 s lease ends. */
    private static final long WOKEN_MILLIS = 1_000;

    RedisLockClient holderClient;
    RedisLockClient waiterClient;

    @BeforeEach
    void setUp() {
        holderClient = RedisLockClient.builder(redis.newConnectionFactory()).build();
        waiterClient = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        waiterClient.close();
        holderClient.close();
    }

    @Test
    void aWaiterComingBackWithinTheKeepIsWokenByTheRelease() throws Exception {
        List<String> slow = new ArrayList<>();
        long[] gaps = {0, 100, 490, 510};
        for (String kind : List.of("plain", "fair", "read", "write")) {
            for (boolean async : new boolean[] {false, true}) {
                for (int round = 0; round < 2; round++) {
                    long gap = gaps[ThreadLocalRandom.current().nextInt(gaps.length)];
                    String name = "kept:" + kind + ":" + async + ":" + round;
                    long first = wokenAfterRelease(kind, name, async, 10);
                    Thread.sleep(gap); // the channel is kept (or just let go) when the next wait comes
                    long second = wokenAfterRelease(kind, name, async, ThreadLocalRandom.current().nextInt(30));
                    if (first > WOKEN_MILLIS || second > WOKEN_MILLIS) {
                        slow.add(kind + (async ? " async" : " blocking") + " gap " + gap + " ms: " + first + " / "
                                + second + " ms");
                    }
                }
            }
        }
        assertThat(slow).isEmpty();
    }

    @Test
    void aKeptChannelWakesTheNextWaiterAfterItsConnectionWasKilled() throws Exception {
        List<String> slow = new ArrayList<>();
        for (String kind : List.of("plain", "fair")) {
            for (long killedAfter : new long[] {0, 490}) {
                String name = "killed:" + kind + ":" + killedAfter;
                wokenAfterRelease(kind, name, true, 10);
                Thread.sleep(killedAfter); // the channel is kept: the idle check is due about now
                redis.commands().clientKill(io.lettuce.core.KillArgs.Builder.typePubsub());
                for (long comesAfter : new long[] {0, 30}) {
                    Thread.sleep(comesAfter);
                    long millis = wokenAfterRelease(kind, name, true, 30);
                    if (millis > WOKEN_MILLIS) {
                        slow.add(kind + " killed after " + killedAfter + " ms, next wait " + comesAfter + " ms later: "
                                + millis + " ms");
                    }
                }
            }
        }
        assertThat(slow).isEmpty();
        assertThat(subscribersOnceGone(2_000)).isZero();
    }

    @Test
    void manyLocksEachWaitedOnOnceLeaveNoSubscriptionOnceTheKeepIsOver() throws Exception {
        int locks = 300;
        List<LockOwner> holders = new ArrayList<>();
        List<CompletableFuture<Boolean>> waits = new ArrayList<>();
        List<LockOwner> waiters = new ArrayList<>();
        for (int i = 0; i < locks; i++) {
            LockOwner holder = holderClient.newOwner();
            holderClient.getLock("many:" + i, holder).lockAsync(Duration.ofSeconds(20), holder)
                    .get(5, TimeUnit.SECONDS);
            holders.add(holder);
            LockOwner waiter = waiterClient.newOwner();
            waits.add(waiterClient.getLock("many:" + i, waiter).tryLockAsync(Duration.ofSeconds(20),
                    Duration.ofSeconds(20), waiter));
            waiters.add(waiter);
        }
        for (int i = 0; i < locks; i++) {
            holderClient.getLock("many:" + i, holders.get(i)).unlockAsync(holders.get(i)).get(5, TimeUnit.SECONDS);
        }
        for (int i = 0; i < locks; i++) {
            assertThat(waits.get(i).get(10, TimeUnit.SECONDS)).isTrue();
            waiterClient.getLock("many:" + i, waiters.get(i)).unlockAsync(waiters.get(i)).get(5, TimeUnit.SECONDS);
        }
        // 500 ms from each lock's last leave, plus a margin for a loaded machine
        assertThat(subscribersOnceGone(1_500)).isZero();
    }

    @Test
    void repeatedWaitsOnOneLockKeepOneSubscriptionAndCloseLeavesNone() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong most = new AtomicLong();
        Thread counter = new Thread(() -> {
            while (!stop.get()) {
                most.accumulateAndGet(lockSubscribers(), Math::max);
            }
        });
        counter.start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        int waits = 0;
        try {
            while (System.nanoTime() < end) {
                wokenAfterRelease("plain", "one", true, waits % 5);
                waits++;
            }
        }
        finally {
            stop.set(true);
            counter.join();
        }
        assertThat(waits).isGreaterThan(10);
        assertThat(most.get()).isEqualTo(1);
        assertThat(lockSubscribers()).isLessThanOrEqualTo(1); // kept a moment, one at most
        waiterClient.close();
        assertThat(subscribersOnceGone(1_000)).isZero();
    }

    @Test
    void shortWaitsChurningOnAFewLocksNeverHoldTwiceNorStrandALongWait() throws Exception {
        List<String> names = List.of("churn:0", "churn:1");
        AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger()};
        AtomicInteger twice = new AtomicInteger();
        AtomicInteger longWaitsTaken = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (RedisLockClient client : List.of(holderClient, waiterClient)) {
            for (int t = 0; t < 3; t++) {
                threads.add(new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (!stop.get()) {
                        int i = random.nextInt(names.size());
                        ReentrantDistributedLock lock = client.getLock(names.get(i));
                        try {
                            if (lock.tryLock(1 + random.nextInt(5), 5_000, TimeUnit.MILLISECONDS)) {
                                inside(inside[i], twice, random.nextInt(3) == 0 ? 1 : 0);
                                lock.unlock();
                            }
                        }
                        catch (Throwable ex) {
                            problems.add("short wait: " + ex);
                        }
                    }
                }));
            }
            for (int n = 0; n < names.size(); n++) {
                int i = n;
                threads.add(new Thread(() -> {
                    ReentrantDistributedLock lock = client.getLock(names.get(i));
                    while (!stop.get()) {
                        try {
                            if (!lock.tryLock(5_000, 5_000, TimeUnit.MILLISECONDS)) {
                                problems.add("a 5 s wait on " + names.get(i) + " gave up");
                                continue;
                            }
                            longWaitsTaken.incrementAndGet();
                            inside(inside[i], twice, 1);
                            lock.unlock();
                            Thread.sleep(ThreadLocalRandom.current().nextInt(10));
                        }
                        catch (Throwable ex) {
                            problems.add("long wait: " + ex);
                        }
                    }
                }));
            }
        }
        threads.forEach(Thread::start);
        Thread.sleep(3_000);
        stop.set(true);
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        assertThat(twice).hasValue(0);
        assertThat(problems).isEmpty();
        assertThat(longWaitsTaken.get()).isGreaterThan(20);
    }

    private static void inside(AtomicInteger holders, AtomicInteger twice, long millis) throws InterruptedException {
        if (holders.incrementAndGet() != 1) {
            twice.incrementAndGet();
        }
        if (millis > 0) {
            Thread.sleep(millis);
        }
        holders.decrementAndGet();
    }

    /**
     * The holder client takes lock {@code name} with a 20 s lease, the waiter client waits for it, the holder
     * releases {@code releaseAfter} ms later: how long after the release the waiter had it (in ms).
     */
    private long wokenAfterRelease(String kind, String name, boolean async, long releaseAfter) throws Exception {
        LockOwner holder = holderClient.newOwner();
        ReentrantDistributedLock held = lock(holderClient, kind.equals("read") ? "write" : kind, name, holder);
        held.lockAsync(Duration.ofSeconds(20), holder).get(5, TimeUnit.SECONDS);
        CompletableFuture<Long> tookAt = new CompletableFuture<>();
        Thread thread = null;
        if (async) {
            LockOwner owner = waiterClient.newOwner();
            ReentrantDistributedLock waiting = lock(waiterClient, kind, name, owner);
            waiting.tryLockAsync(Duration.ofSeconds(10), Duration.ofSeconds(20), owner).whenComplete((taken, failure) -> {
                long now = System.nanoTime();
                if (failure != null || !taken) {
                    tookAt.completeExceptionally(failure != null ? failure : new AssertionError("not taken"));
                    return;
                }
                waiting.unlockAsync(owner).whenComplete((unused, notGivenBack) -> tookAt.complete(now));
            });
        }
        else {
            thread = new Thread(() -> {
                ReentrantDistributedLock waiting = lock(waiterClient, kind, name, null);
                try {
                    boolean taken = waiting.tryLock(10, 20, TimeUnit.SECONDS);
                    long now = System.nanoTime();
                    if (!taken) {
                        throw new AssertionError("not taken");
                    }
                    waiting.unlock();
                    tookAt.complete(now);
                }
                catch (Throwable ex) {
                    tookAt.completeExceptionally(ex);
                }
            });
            thread.start();
        }
        Thread.sleep(releaseAfter);
        long released = System.nanoTime();
        held.unlockAsync(holder).get(5, TimeUnit.SECONDS);
        long took = tookAt.get(15, TimeUnit.SECONDS);
        if (thread != null) {
            thread.join();
        }
        return TimeUnit.NANOSECONDS.toMillis(Math.max(0, took - released));
    }

    private static ReentrantDistributedLock lock(RedisLockClient client, String kind, String name, LockOwner owner) {
        return switch (kind) {
            case "plain" -> owner == null ? client.getLock(name) : client.getLock(name, owner);
            case "fair" -> owner == null ? client.getFairLock(name) : client.getFairLock(name, owner);
            case "read" -> (owner == null ? client.getReadWriteLock(name) : client.getReadWriteLock(name, owner))
                    .readLock();
            case "write" -> (owner == null ? client.getReadWriteLock(name) : client.getReadWriteLock(name, owner))
                    .writeLock();
            default -> throw new IllegalArgumentException(kind);
        };
    }

    /** Subscribers of lock channels (every channel but the clients' anchors). */
    private static long lockSubscribers() {
        return Subscribers.ofReleaseChannels(redis.commands());
    }

    /** {@link #lockSubscribers()} once 0, or after {@code millis}. */
    private static long subscribersOnceGone(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long subscribers;
        while ((subscribers = lockSubscribers()) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return subscribers;
    }
}
