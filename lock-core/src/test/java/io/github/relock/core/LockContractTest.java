package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * {@link ReentrantDistributedLock} extends {@link Lock}, and code is written against that interface's
 * Javadoc: each case below is a sentence of it (or of the lock's own Javadoc where relock must differ),
 * checked on a real Redis.
 */
@Timeout(60)
class LockContractTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;
    final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(Duration.ofMillis(600)).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        Thread.interrupted();
        pool.shutdownNow();
        client.close();
        other.close();
    }

    // Lock.lock(): "the current thread becomes disabled ... until the lock has been acquired"; interrupts are not
    // part of its contract (ReentrantLock.lock() ignores them, and so does relock's)

    @Test
    void lockIgnoresAnInterruptAndKeepsTheStatus() {
        Lock lock = client.getLock("contract-lock");
        Thread.currentThread().interrupt();
        lock.lock();
        assertThat(Thread.interrupted()).as("status kept").isTrue();
        lock.unlock();
    }

    @Test
    void lockWaitsThroughAnInterruptThenRestoresIt() throws Exception {
        ReentrantDistributedLock held = other.getLock("contract-lock-wait");
        held.lock();
        Future<Boolean> waiter = pool.submit(() -> {
            ReentrantDistributedLock lock = client.getLock("contract-lock-wait");
            lock.lock();
            boolean interrupted = Thread.interrupted();
            lock.unlock();
            return interrupted;
        });
        Thread.sleep(200);
        waiter.cancel(false);
        interruptPoolThreads(); // cancel(false) does not interrupt: interrupt by hand
        Thread.sleep(200);
        held.unlock();
        await().atMost(Duration.ofSeconds(5)).until(() -> !client.getLock("contract-lock-wait").isLocked());
    }

    // Lock.lockInterruptibly(): "If the current thread has its interrupted status set on entry ... then
    // InterruptedException is thrown and the current thread's interrupted status is cleared."

    @Test
    void lockInterruptiblyThrowsOnEntryAndClearsTheStatus() {
        ReentrantDistributedLock lock = client.getLock("contract-interruptibly");
        Thread.currentThread().interrupt();
        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(lock.isLocked()).as("not taken").isFalse();
    }

    // Lock.tryLock(): "Acquires the lock if it is available at the time of invocation ... returns immediately
    // with the value false" otherwise. Interrupts are not part of it.

    @Test
    void tryLockAnswersAtOnceAndIgnoresInterrupts() {
        ReentrantDistributedLock held = other.getLock("contract-trylock");
        held.lock();
        ReentrantDistributedLock lock = client.getLock("contract-trylock");
        Thread.currentThread().interrupt();
        long started = System.nanoTime();
        assertThat(lock.tryLock()).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1_000);
        assertThat(Thread.interrupted()).as("status kept").isTrue();
        held.unlock();
        Thread.currentThread().interrupt();
        assertThat(lock.tryLock()).isTrue();
        assertThat(Thread.interrupted()).isTrue();
        assertThat(lock.tryLock()).as("re-entry").isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        lock.unlock();
    }

    // Lock.tryLock(time, unit): "If the time is less than or equal to zero, the method will not wait at all."

    @Test
    void aZeroOrNegativeWaitMakesOneAttempt() throws Exception {
        ReentrantDistributedLock held = other.getLock("contract-negative");
        held.lock();
        ReentrantDistributedLock lock = client.getLock("contract-negative");
        for (long wait : new long[] {0, -1, Long.MIN_VALUE}) {
            long started = System.nanoTime();
            assertThat(lock.tryLock(wait, TimeUnit.SECONDS)).as("wait %d", wait).isFalse();
            assertThat(lock.tryLock(wait, 5, TimeUnit.SECONDS)).as("wait %d with a lease", wait).isFalse();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1_000);
        }
        held.unlock();
        assertThat(lock.tryLock(-1, TimeUnit.SECONDS)).as("free: taken at once").isTrue();
        lock.unlock();
    }

    // "If the current thread has its interrupted status set on entry ... InterruptedException is thrown and the
    // current thread's interrupted status is cleared" (ReentrantLock does so even when the lock is free).

    @Test
    void timedTryLockThrowsOnAnInterruptedEntryAndClearsTheStatus() {
        ReentrantDistributedLock lock = client.getLock("contract-timed-interrupt");
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> lock.tryLock(0, TimeUnit.SECONDS)).as("even without waiting")
                .isInstanceOf(InterruptedException.class);
        assertThat(lock.isLocked()).isFalse();
    }

    // a hold keeps only its encoded lock key and a number for the time: what heldLocks() says is rebuilt from them
    @Test
    void heldLocksNameTheLockItsKeyAndWhenItWasTaken() {
        String name = "contract-held:%7D}größe";
        ReentrantDistributedLock lock = client.getLock(name);
        Instant before = Instant.now();
        lock.lock();
        Instant after = Instant.now();
        try {
            assertThat(client.heldLocks()).singleElement().satisfies(held -> {
                assertThat(held.name()).isEqualTo(name).isEqualTo(lock.getName());
                assertThat(held.key()).isEqualTo(client.getKeyPrefix() + "{contract-held:%257D%7Dgröße}");
                assertThat(held.acquiredAt()).isBetween(before, after);
                assertThat(held.fencingToken()).isEqualTo(lock.fencingToken());
            });
        }
        finally {
            lock.unlock();
        }
    }

    @Test
    void anInterruptWhileWaitingEndsTheWaitWithNothingHeldOrSubscribed() throws Exception {
        ReentrantDistributedLock held = other.getLock("contract-wait-interrupt");
        held.lock();
        Future<Object> waiter = pool.submit(() -> {
            ReentrantDistributedLock lock = client.getLock("contract-wait-interrupt");
            try {
                lock.tryLock(30, TimeUnit.SECONDS);
                return "acquired";
            }
            catch (InterruptedException ex) {
                return Thread.currentThread().isInterrupted() ? "status still set" : "interrupted";
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> releaseListeners("contract-wait-interrupt") == 1);
        waiter.cancel(true);
        interruptPoolThreads();
        await().atMost(Duration.ofSeconds(5)).until(() -> releaseListeners("contract-wait-interrupt") == 0);
        assertThat(client.heldLocks()).isEmpty();
        held.unlock();
    }

    // Lock.unlock(): "typically only the holder of the lock can release it and [it] may throw an (unchecked)
    // exception if the restriction is violated": IllegalMonitorStateException, as ReentrantLock.

    @Test
    void unlockByANonHolderThrowsIllegalMonitorState() throws Exception {
        ReentrantDistributedLock lock = client.getLock("contract-unlock");
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        lock.lock();
        Future<?> fromAnotherThread = pool.submit(() -> client.getLock("contract-unlock").unlock());
        assertThat(fromAnotherThread).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
                .havingRootCause().isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.isHeldByCurrentThread()).as("still the holder's").isTrue();
        lock.unlock();
        assertThatThrownBy(lock::unlock).as("once too often").isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void newConditionIsNotSupported() {
        assertThatThrownBy(() -> client.getLock("contract-condition").newCondition())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    // The idiom written against any Lock with an expiring lease:
    //   try { ... } finally { if (lock.isHeldByCurrentThread()) lock.unlock(); }
    // must leave nothing behind when the lease ran out, and the next lock() is a plain acquisition.

    @Test
    void theIsHeldThenUnlockIdiomLeavesNothingBehindAfterALeaseRanOut() throws Exception {
        ReentrantDistributedLock lock = client.getLock("contract-idiom");
        assertThat(lock.tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue();
        Thread.sleep(500);
        if (lock.isHeldByCurrentThread()) {
            lock.unlock();
        }
        assertThat(client.heldLocks()).as("no hold left behind").isEmpty();
        assertThat(lock.tryLock()).as("the next acquisition is a new hold").isTrue();
        assertThat(lock.getHoldCount()).isOne();
        lock.unlock();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void theIdiomAfterTheWatchdogFoundTheLockGoneLeavesNothingBehindEither() {
        ReentrantDistributedLock lock = client.getLock("contract-idiom-watchdog");
        lock.lock();
        redis.commands().del(lock.getKey());
        await().atMost(Duration.ofSeconds(2)).pollInSameThread().until(lock::isLost); // the owner asks
        if (lock.isHeldByCurrentThread()) {
            lock.unlock();
        }
        assertThat(client.heldLocks()).isEmpty();
        lock.lock();
        assertThat(lock.getHoldCount()).isOne();
        lock.unlock();
    }

    // Where relock differs from ReentrantLock: a lock can be lost. The owner is told once, at its next
    // unlock() (LockLostException, an IllegalMonitorStateException) or re-entry.

    @Test
    void aLostLockIsReportedOnceThenForgotten() {
        ReentrantDistributedLock lock = client.getLock("contract-lost");
        lock.lock();
        redis.commands().del(lock.getKey());
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock).as("told once").isInstanceOf(IllegalMonitorStateException.class)
                .isNotInstanceOf(LockLostException.class);
        lock.lock();
        lock.unlock();
    }

    @Test
    void everyMethodOfAClosedClientThrowsIllegalState() {
        ReentrantDistributedLock lock = client.getLock("contract-closed");
        client.close();
        assertThatThrownBy(lock::lock).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(lock::tryLock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.getLock("x")).isInstanceOf(IllegalStateException.class);
    }

    private void interruptPoolThreads() {
        for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
            if (thread.getKey().getName().startsWith("pool-")) {
                thread.getKey().interrupt();
            }
        }
    }

    private long releaseListeners(String name) {
        String channel = client.redisKeys(name).releaseChannel();
        return redis.commands().pubsubNumsub(channel).getOrDefault(channel, 0L);
    }
}
