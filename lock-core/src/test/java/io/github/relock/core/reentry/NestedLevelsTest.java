package io.github.relock.core.reentry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.MultiLock;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/** Re-entry counted in the client keeps every guarantee of the other features and under faults, level by level. */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class NestedLevelsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(Duration.ofMillis(600))
                .lockLostListener(lost::add).build();
        other = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    private long keys() {
        return redis.commands().keys("*").stream().filter(k -> !k.endsWith(":fence") && !k.contains(":ended")).count();
    }

    @Test
    void readWriteDowngradeWithLocalLevels() throws Exception {
        ReadWriteDistributedLock rw = client.getReadWriteLock("bk:rw");
        rw.writeLock().lock();
        rw.readLock().lock(); // downgrade: a new read hold
        rw.writeLock().lock(); // local
        rw.writeLock().lock(5, TimeUnit.SECONDS); // local, covered by the watchdog
        rw.writeLock().lock(60, TimeUnit.SECONDS); // lengthens: Redis
        rw.readLock().lock(); // local
        assertThat(rw.writeLock().getHoldCount()).isEqualTo(4);
        assertThat(rw.readLock().getHoldCount()).isEqualTo(2);
        ReadWriteDistributedLock theirs = other.getReadWriteLock("bk:rw");
        for (int i = 0; i < 3; i++) {
            rw.writeLock().unlock();
            assertThat(theirs.readLock().tryLock()).as("write still held at level %d", 3 - i).isFalse();
        }
        rw.writeLock().unlock();
        assertThat(theirs.readLock().tryLock()).as("write freed, readers share").isTrue();
        theirs.readLock().unlock();
        assertThat(theirs.writeLock().tryLock()).as("our read hold still there").isFalse();
        rw.readLock().unlock();
        assertThat(theirs.writeLock().tryLock()).isFalse();
        rw.readLock().unlock();
        assertThat(theirs.writeLock().tryLock()).isTrue();
        theirs.writeLock().unlock();
        assertThat(client.heldLocks()).isEmpty();
        assertThat(keys()).isZero();
    }

    @Test
    void fairLockNestedLevelsKeepAWaiterOut() throws Exception {
        ReentrantDistributedLock fair = client.getFairLock("bk:fair");
        fair.lock();
        fair.lock();
        fair.tryLock(0, 200, TimeUnit.MILLISECONDS); // local
        CountDownLatch got = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            ReentrantDistributedLock theirs = other.getFairLock("bk:fair");
            try {
                if (theirs.tryLock(10, TimeUnit.SECONDS)) {
                    got.countDown();
                    theirs.unlock();
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        fair.unlock();
        fair.unlock();
        assertThat(got.await(700, TimeUnit.MILLISECONDS)).as("outer level still held").isFalse();
        fair.unlock();
        assertThat(got.await(5, TimeUnit.SECONDS)).isTrue();
        waiter.join(5000);
        assertThat(redis.commands().exists(fair.getKey())).isZero();
    }

    @Test
    void multiLockNestedAndLengthened() {
        MultiLock multi = client.getMultiLock("bk:m1", "bk:m2", "bk:m3");
        multi.lock();
        multi.lock();
        multi.lock(1, TimeUnit.SECONDS); // local on each
        multi.lock(60, TimeUnit.SECONDS); // Redis on each
        assertThat(multi.getHoldCount()).isEqualTo(4);
        for (int i = 0; i < 3; i++) {
            multi.unlock();
            assertThat(other.getMultiLock("bk:m1", "bk:m2", "bk:m3").tryLock()).isFalse();
        }
        multi.unlock();
        assertThat(keys()).isZero();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void interruptStatusAndNestedCalls() throws Exception {
        ReentrantDistributedLock lock = client.getLock("bk:interrupt");
        lock.lock();
        Thread.currentThread().interrupt();
        lock.lock(); // ignores it, keeps it
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        assertThat(lock.tryLock()).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(lock.getHoldCount()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            lock.unlock();
        }
        assertThat(keys()).isZero();
    }

    @Test
    void maxHoldPassesUnderNestedLevels() throws Exception {
        ReentrantDistributedLock lock = client.getLock("bk:maxhold");
        lock.withMaxHold(Duration.ofMillis(400)).lock();
        lock.lock();
        lock.lock();
        Thread.sleep(1200);
        assertThat(lost).hasSize(1);
        assertThat(redis.commands().exists(lock.getKey())).isZero();
        assertThatThrownBy(lock::lock).isInstanceOf(LockLostException.class);
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void maxHoldPassedButNotYetSeenNestedCallThenRelease() throws Exception {
        RedisLockClient slow = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(Duration.ofSeconds(30))
                .lockLostListener(lost::add).build();
        try {
            ReentrantDistributedLock lock = slow.getLock("bk:maxhold2");
            lock.withMaxHold(Duration.ofMillis(200)).lock();
            lock.lock();
            Thread.sleep(300); // past maxHold; the watchdog's next round is up to 10 s away
            lock.lock(); // goes to Redis (overdue): documented
            lock.unlock();
            lock.unlock();
            lock.unlock();
            assertThat(redis.commands().exists(lock.getKey())).isZero();
            assertThat(slow.heldLocks()).isEmpty();
        }
        finally {
            slow.close();
        }
    }

    @Test
    void forceUnlockBetweenLevels() {
        ReentrantDistributedLock lock = client.getLock("bk:force");
        lock.lock();
        lock.lock();
        assertThat(other.getLock("bk:force").forceUnlock()).isTrue();
        assertThat(other.getLock("bk:force").tryLock()).isTrue();
        // answered from the client's own state: zero once the watchdog's next round has found the loss
        await().atMost(Duration.ofSeconds(5)).pollInSameThread().until(() -> lock.getHoldCount() == 0);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(lost).hasSize(1)); // the listeners' thread
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        other.getLock("bk:force").unlock();
        lock.lock();
        assertThat(lock.getHoldCount()).isOne();
        lock.unlock();
        assertThat(keys()).isZero();
    }

    @Test
    void redisRestartBetweenLevels() throws Exception {
        ReentrantDistributedLock lock = client.getLock("bk:restart");
        lock.lock();
        lock.lock();
        redis.server().restart(); // data lost
        ReentrantDistributedLock theirs = other.getLock("bk:restart");
        boolean taken = false;
        for (int i = 0; i < 50 && !taken; i++) {
            try {
                taken = theirs.tryLock();
            }
            catch (RuntimeException ex) {
                Thread.sleep(100);
            }
        }
        assertThat(taken).isTrue();
        List<Throwable> thrown = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            try {
                lock.unlock();
            }
            catch (Throwable ex) {
                thrown.add(ex);
            }
        }
        assertThat(thrown).as("the loss is reported by one of the unlocks").anyMatch(LockLostException.class::isInstance);
        theirs.unlock();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void closeBetweenLevels() throws Exception {
        ReentrantDistributedLock lock = client.getLock("bk:close");
        lock.lock();
        lock.lock();
        client.close();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::lock).isInstanceOf(IllegalStateException.class);
        Thread.sleep(900);
        assertThat(redis.commands().exists(lock.getKey())).isZero();
    }

    @Test
    void pausedRedisUnderNestedLevelsIsReportedAtNestedUnlock() throws Exception {
        ReentrantDistributedLock lock = client.getLock("bk:paused");
        lock.lock();
        lock.lock();
        redis.server().pause();
        Thread.sleep(1500);
        redis.server().resume();
        Thread.sleep(500);
        assertThat(lost).hasSize(1);
        assertThat(lock.isLost()).isTrue();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        lock.lock(); // told once: a new hold now
        assertThat(lock.getHoldCount()).isOne();
        lock.unlock();
        assertThat(keys()).isZero();
    }

    @Test
    void asyncReentryFlood() throws Exception {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock("bk:async-flood");
        lock.lockAsync(owner).get(5, TimeUnit.SECONDS);
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            all.add(i % 3 == 0 ? lock.tryLockAsync(Duration.ZERO, Duration.ofSeconds(60), owner)
                    : i % 3 == 1 ? lock.lockAsync(owner) : lock.tryLockAsync(Duration.ofSeconds(1), null, owner));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(client.getLock("bk:async-flood", owner).getHoldCount()).isEqualTo(2001);
        List<CompletableFuture<?>> releases = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            releases.add(lock.unlockAsync(owner));
        }
        CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(redis.commands().exists(lock.getKey())).isOne();
        lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertThat(keys()).isZero();
        assertThat(client.heldLocks()).isEmpty();
    }

    /** One explicit owner on 8 threads, mixing local, lengthening (Redis) and watchdog re-entries. */
    @Test
    void mixedReentriesFromManyThreadsOfOneOwner() throws Exception {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock("bk:mixed", owner);
        lock.lock(200, TimeUnit.MILLISECONDS);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 500; i++) {
                        int depth = 1 + random.nextInt(4);
                        for (int d = 0; d < depth; d++) {
                            switch (random.nextInt(4)) {
                                case 0 -> lock.lock();
                                case 1 -> lock.lock(1 + random.nextInt(5000), TimeUnit.MILLISECONDS);
                                case 2 -> assertThat(lock.tryLock()).isTrue();
                                default -> {
                                    try {
                                        assertThat(lock.tryLock(0, 10_000 + random.nextInt(100_000),
                                                TimeUnit.MILLISECONDS)).isTrue();
                                    }
                                    catch (InterruptedException ex) {
                                        throw new IllegalStateException(ex);
                                    }
                                }
                            }
                        }
                        for (int d = 0; d < depth; d++) {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(50, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(keys()).isZero();
        assertThat(client.heldLocks()).isEmpty();
        assertThat(lost).isEmpty();
    }

    /**
     * Fixed lease re-entered right at its end: after a nested lock(100ms) returns (locally or not), no other
     * client may take the lock until 100 ms after that call started, unless the owner fully released it.
     * (The machine may be loaded: the owner's own lease may run out; only a rival inside the promised
     * window counts.)
     */
    @Test
    void fixedLeaseReentryAtTheEdgeNeverOverlaps() throws Exception {
        java.util.concurrent.atomic.AtomicLong protectedUntil = new java.util.concurrent.atomic.AtomicLong();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger rivalWins = new AtomicInteger();
        Thread rival = new Thread(() -> {
            ReentrantDistributedLock theirs = other.getLock("bk:edge");
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    if (theirs.tryLock(50, 30, TimeUnit.MILLISECONDS)) {
                        long until = protectedUntil.get();
                        if (until != 0 && System.nanoTime() - until < 0) {
                            overlaps.incrementAndGet();
                        }
                        rivalWins.incrementAndGet();
                        theirs.unlock();
                    }
                }
                catch (InterruptedException ex) {
                    return;
                }
                catch (RuntimeException ex) {
                    // a lost 30 ms lease: fine
                }
            }
        });
        rival.start();
        ReentrantDistributedLock lock = client.getLock("bk:edge");
        try {
            for (int round = 0; round < 40; round++) {
                lock.lock(300, TimeUnit.MILLISECONDS);
                Thread.sleep(150 + ThreadLocalRandom.current().nextInt(60));
                long called = System.nanoTime();
                lock.lock(100, TimeUnit.MILLISECONDS); // local if covered, else Redis
                protectedUntil.set(called + TimeUnit.MILLISECONDS.toNanos(100));
                Thread.sleep(ThreadLocalRandom.current().nextInt(90));
                try {
                    lock.unlock();
                }
                catch (LockLostException ex) {
                    protectedUntil.set(0);
                    continue; // a loaded machine let the nested lease run out: told, fine
                }
                protectedUntil.set(0);
                try {
                    lock.unlock();
                }
                catch (LockLostException | IllegalMonitorStateException ex) {
                    // the outer 300 ms may have run out; on a loaded machine so long ago that the client forgot it
                }
            }
        }
        finally {
            rival.interrupt();
            rival.join(5000);
        }
        assertThat(rivalWins.get()).isPositive();
        assertThat(overlaps.get()).isZero();
    }
}
