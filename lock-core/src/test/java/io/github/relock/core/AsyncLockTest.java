package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.testing.Subscribers;
import io.github.relock.test.RedisServerExtension;

/** The asynchronous calls against a real redis-server: no thread per waiter, and nothing left behind. */
@Timeout(120)
@Tag("redis-version-independent")
class AsyncLockTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<RedisLockClient> clients = new ArrayList<>();
    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = newClient();
        other = newClient();
    }

    @AfterEach
    void tearDown() {
        clients.forEach(RedisLockClient::close);
    }

    RedisLockClient newClient() {
        RedisLockClient created = RedisLockClient.builder(redis.connectionFactory())
                .watchdogTimeout(Duration.ofSeconds(2)).build();
        clients.add(created);
        return created;
    }

    /** The subscribers of lock {@code name}'s channel once the client let it go (see {@link Subscribers}). */
    long subscribersOnceIdle(String name) throws InterruptedException {
        return Subscribers.onceIdle(redis.commands(), client.redisKeys(name).releaseChannel());
    }

    long subscribers(String name) {
        Map<String, Long> counts = redis.commands().pubsubNumsub(client.redisKeys(name).releaseChannel());
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    long clientThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().contains(client.getClientId())).count();
    }

    @Test
    void takesReentersAndGivesBackForItsOwner() throws Exception {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock("async:1");
        assertThat(lock.tryLockAsync(Duration.ZERO, null, owner).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.lockAsync(owner).thenApply(nothing -> "in")).succeedsWithin(Duration.ofSeconds(5));
        ReentrantDistributedLock owned = client.getLock("async:1", owner);
        assertThat(owned.getHoldCount()).isEqualTo(2);
        assertThat(other.getLock("async:1").tryLock()).isFalse();
        lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertThat(owned.isHeldByCurrentThread()).isTrue();
        owned.unlock(); // the blocking face of the same owner gives back the other hold
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(() -> lock.unlockAsync(owner).get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalMonitorStateException.class);
    }

    /** Two calls of one owner at once both read "no hold" and wrote over each other. */
    @Test
    void twoCallsOfOneOwnerAtOnceCountTwoHoldsAndKeepOthersOut() throws Exception {
        for (int run = 0; run < 100; run++) {
            String name = "async:twice:" + run;
            LockOwner owner = client.newOwner();
            ReentrantDistributedLock lock = client.getLock(name);
            CompletableFuture<Boolean> first = lock.tryLockAsync(Duration.ofSeconds(5), null, owner);
            CompletableFuture<Boolean> second = lock.tryLockAsync(Duration.ofSeconds(5), null, owner);
            boolean blocking = client.getLock(name, owner).tryLock(5, TimeUnit.SECONDS); // and the blocking face
            assertThat(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS) && blocking).isTrue();
            assertThat(client.getLock(name, owner).getHoldCount()).as("run " + run).isEqualTo(3);
            lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
            lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
            assertThat(other.getLock(name).tryLock()).as("still held once, run " + run).isFalse();
            lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
            assertThat(lock.isLocked()).isFalse();
        }
    }

    @Test
    void aThousandWaitersHoldNoThreadAndEachGetsTheLockInTurn() throws Exception {
        ReentrantDistributedLock held = other.getLock("async:many");
        held.lock();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Boolean>> waiters = new ArrayList<>();
        long threadsBefore = Thread.activeCount();
        for (int i = 0; i < 1_000; i++) {
            LockOwner owner = client.newOwner();
            ReentrantDistributedLock lock = client.getLock("async:many");
            waiters.add(lock.tryLockAsync(Duration.ofSeconds(60), Duration.ofSeconds(10), owner)
                    .thenCompose(acquired -> {
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        inside.decrementAndGet();
                        return lock.unlockAsync(owner).thenApply(released -> acquired);
                    }));
        }
        Thread.sleep(500);
        assertThat(waiters).noneMatch(CompletableFuture::isDone);
        assertThat(clientThreads()).as("the client's scheduler and event thread at most, none per waiter")
                .isLessThanOrEqualTo(2);
        assertThat(Thread.activeCount() - threadsBefore).isLessThan(20);
        assertThat(subscribers("async:many")).as("one subscription for all of this client's waiters").isEqualTo(1);
        held.unlock();
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(waiters).allMatch(waiter -> waiter.join());
        assertThat(overlaps.get()).isZero();
        assertThat(subscribersOnceIdle("async:many")).isZero();
    }

    @Test
    void aWaiterIsWokenByTheReleaseNotByTheHoldersLease() throws Exception {
        RedisLockClient slow = RedisLockClient.builder(redis.connectionFactory()).build(); // 30 s leases
        clients.add(slow);
        ReentrantDistributedLock held = slow.getLock("async:wake");
        held.lock();
        CompletableFuture<Boolean> waiting = client.getLock("async:wake")
                .tryLockAsync(Duration.ofSeconds(20), null, client.newOwner());
        Thread.sleep(200);
        long released = System.nanoTime();
        held.unlock();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofMillis(500));
    }

    @Test
    void aWaitThatTimesOutCompletesWithFalseAndLeavesNoSubscription() throws Exception {
        other.getLock("async:busy").lock();
        long started = System.nanoTime();
        CompletableFuture<Boolean> attempt = client.getLock("async:busy")
                .tryLockAsync(Duration.ofMillis(300), null, client.newOwner());
        assertThat(attempt.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(290),
                Duration.ofSeconds(2));
        assertThat(subscribersOnceIdle("async:busy")).isZero();
    }

    @Test
    void aCancelledWaiterLeavesAndNeverTakesTheLock() throws Exception {
        ReentrantDistributedLock held = other.getLock("async:cancel");
        held.lock();
        CompletableFuture<Void> waiting = client.getLock("async:cancel").lockAsync(client.newOwner());
        while (subscribers("async:cancel") == 0) {
            Thread.sleep(1);
        }
        assertThat(waiting.cancel(true)).isTrue();
        while (subscribers("async:cancel") != 0) {
            Thread.sleep(1); // the subscription goes with the wait
        }
        held.unlock();
        Thread.sleep(200);
        assertThat(held.isLocked()).isFalse();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void tenThousandCancelledCallsLeaveNoHoldAndNoSubscription() throws Exception {
        ReentrantDistributedLock blocking = other.getLock("async:churn");
        ReentrantDistributedLock lock = client.getLock("async:churn");
        int granted = 0;
        for (int round = 0; round < 100; round++) {
            boolean held = round % 2 == 0 && blocking.tryLock();
            List<LockOwner> owners = new ArrayList<>();
            List<CompletableFuture<Void>> calls = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                owners.add(client.newOwner());
                calls.add(lock.lockAsync(owners.get(i)));
            }
            Thread.sleep(ThreadLocalRandom.current().nextInt(3));
            for (int i = 0; i < calls.size(); i++) {
                if (!calls.get(i).cancel(true)) {
                    granted++; // it got the lock before the cancel: like any holder, it gives the lock back
                    assertThat(client.getLock("async:churn", owners.get(i)).getHoldCount()).isEqualTo(1);
                    lock.unlockAsync(owners.get(i)).get(5, TimeUnit.SECONDS);
                }
            }
            if (held) {
                blocking.unlock();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((blocking.isLocked() || subscribers("async:churn") != 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(blocking.isLocked()).as("no cancelled call left the lock held (granted: " + granted + ")")
                .isFalse();
        assertThat(subscribers("async:churn")).isZero();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void ownersOfAnotherClientOrAnotherHandleAreRefusedAtTheCall() {
        LockOwner foreign = other.newOwner();
        assertThatThrownBy(() -> client.getLock("async:who").tryLockAsync(Duration.ZERO, null, foreign))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another RedisLockClient");
        LockOwner mine = client.newOwner();
        assertThatThrownBy(() -> client.getLock("async:who", mine).lockAsync(client.newOwner()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("belongs to owner");
        assertThatThrownBy(() -> client.getLock("async:who").tryLockAsync(Duration.ZERO, Duration.ZERO, mine))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> client.getLock("async:who").tryLockAsync(null, null, mine))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTime");
    }

    @Test
    void closingTheClientFailsItsWaiters() throws Exception {
        other.getLock("async:close").lock();
        RedisLockClient closing = newClient();
        CompletableFuture<Void> waiting = closing.getLock("async:close").lockAsync(closing.newOwner());
        Thread.sleep(200);
        closing.close();
        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThat(subscribers("async:close")).isZero();
    }

    @Test
    void aWatchdogHoldOutlivesTheWatchdogTimeoutAndAFixedLeaseEnds() throws Exception {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock("async:lease");
        assertThat(lock.tryLockAsync(Duration.ZERO, null, owner).get()).isTrue();
        ReentrantDistributedLock leased = client.getLock("async:leased");
        assertThat(leased.tryLockAsync(Duration.ZERO, Duration.ofMillis(300), owner).get()).isTrue();
        Thread.sleep(2_500);
        assertThat(lock.isLocked()).as("renewed past the 2 s watchdog timeout").isTrue();
        assertThat(leased.isLocked()).isFalse();
        lock.unlockAsync(owner).get();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void fairAsyncWaitersGoInTheOrderRedisReceivedThem() throws Exception {
        ReentrantDistributedLock held = other.getFairLock("async:fair");
        held.lock();
        List<Integer> entered = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            int number = i;
            LockOwner owner = (i % 2 == 0 ? client : other).newOwner();
            ReentrantDistributedLock lock = (i % 2 == 0 ? client : other).getFairLock("async:fair");
            waiters.add(lock.lockAsync(owner).thenCompose(in -> {
                entered.add(number);
                return lock.unlockAsync(owner);
            }));
            while (redis.commands().zcard(held.getKey() + ":line") < i + 1) {
                Thread.sleep(1);
            }
        }
        held.unlock();
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add(i);
        }
        assertThat(entered).isEqualTo(expected);
    }

    @Test
    void asyncReadersShareAndAnAsyncWriterWaitsForThem() throws Exception {
        LockOwner reader1 = client.newOwner();
        LockOwner reader2 = other.newOwner();
        LockOwner writer = client.newOwner();
        ReadWriteDistributedLock doc = client.getReadWriteLock("async:doc");
        assertThat(doc.readLock().tryLockAsync(Duration.ZERO, null, reader1).get()).isTrue();
        assertThat(other.getReadWriteLock("async:doc").readLock().tryLockAsync(Duration.ZERO, null, reader2).get())
                .isTrue();
        CompletableFuture<Boolean> writing = doc.writeLock().tryLockAsync(Duration.ofSeconds(10), null, writer);
        Thread.sleep(200);
        assertThat(writing).isNotDone();
        doc.readLock().unlockAsync(reader1).get();
        other.getReadWriteLock("async:doc").readLock().unlockAsync(reader2).get();
        assertThat(writing.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(other.getReadWriteLock("async:doc").readLock().tryLockAsync(Duration.ZERO, null, reader2).get())
                .as("no reader while the writer holds").isFalse();
        doc.writeLock().unlockAsync(writer).get();
    }
}
