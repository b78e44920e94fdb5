package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.testing.TwoClients;
import io.github.relock.test.RedisServerExtension;

/**
 * {@code isHeldByCurrentThread()}, {@code getHoldCount()} and {@code isLost()} answer from what the client
 * knows, with no round trip, also on a thread whose interrupt status is set; {@code unlock()} on such a
 * thread releases and keeps the status. So the JDK idiom {@code finally { if (isHeldByCurrentThread())
 * unlock(); }} frees the lock on a pool shut down with {@code shutdownNow()}.
 */
@Timeout(60)
@Tag("redis-version-independent")
class LocalQueriesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final TwoClients clients = new TwoClients(
            () -> RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(Duration.ofSeconds(2)).build(),
            () -> RedisLockClient.builder(redis.newConnectionFactory()).build());

    @Test
    void theJdkIdiomFreesTheLockOnAPoolShutDownNowWhileTheBodyRuns() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        CountDownLatch inBody = new CountDownLatch(1);
        AtomicReference<Throwable> fromFinally = new AtomicReference<>();
        pool.execute(() -> {
            ReentrantDistributedLock lock = clients.first().getLock("idiom");
            lock.lock();
            try {
                inBody.countDown();
                while (!Thread.currentThread().isInterrupted()) {
                    LockSupport.park(); // work that notices the interrupt and leaves the status set
                }
            }
            finally {
                try {
                    if (lock.isHeldByCurrentThread()) {
                        lock.unlock();
                    }
                }
                catch (Throwable ex) {
                    fromFinally.set(ex);
                }
            }
        });
        assertThat(inBody.await(10, TimeUnit.SECONDS)).isTrue();
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

        long started = System.nanoTime();
        ReentrantDistributedLock theirs = clients.second().getLock("idiom");
        assertThat(theirs.tryLock(5, TimeUnit.SECONDS)).as("another client takes the freed lock").isTrue();
        System.out.printf("another client took the lock %d ms after the pool ended%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(500);
        assertThat(fromFinally.get()).as("the finally block ran through").isNull();
        assertThat(clients.first().heldLocks()).isEmpty();
        theirs.unlock();
    }

    @Test
    void queriesCostNoRedisCommand() {
        // the default watchdog timeout: no renewal round runs between the two counts
        ReentrantDistributedLock lock = clients.second().getLock("asked-locally");
        ReentrantDistributedLock leased = clients.second().getLock("asked-locally:leased");
        long before = CommandStats.allCalls(redis.commands());
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.isLost()).isFalse();
        assertThat(CommandStats.allCalls(redis.commands())).as("nothing held").isEqualTo(before);

        lock.lock();
        lock.lock();
        leased.lock(10, TimeUnit.SECONDS);
        before = CommandStats.allCalls(redis.commands());
        for (int i = 0; i < 100; i++) {
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(lock.getHoldCount()).isEqualTo(2);
            assertThat(lock.isLost()).isFalse();
            assertThat(leased.isHeldByCurrentThread()).isTrue();
            assertThat(leased.getHoldCount()).isOne();
        }
        assertThat(CommandStats.allCalls(redis.commands())).as("held").isEqualTo(before);
        lock.unlock();
        lock.unlock();
        leased.unlock();
    }

    @Test
    void queriesAnswerOnAnInterruptedThreadAndKeepTheStatus() {
        ReentrantDistributedLock lock = clients.first().getLock("asked-interrupted");
        lock.lock();
        Thread.currentThread().interrupt();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.getHoldCount()).isOne();
        assertThat(lock.isLost()).isFalse();
        assertThat(Thread.currentThread().isInterrupted()).as("status kept").isTrue();
        lock.unlock();
        assertThat(Thread.interrupted()).as("status kept").isTrue();
    }

    @Test
    void unlockOnAnInterruptedThreadReleasesAndKeepsTheStatus() {
        ReentrantDistributedLock lock = clients.first().getLock("released-interrupted");
        lock.lock();
        lock.lock();
        Thread.currentThread().interrupt();
        lock.unlock();
        assertThat(Thread.currentThread().isInterrupted()).as("status kept").isTrue();
        lock.unlock();
        assertThat(Thread.interrupted()).as("status kept").isTrue();
        assertThat(redis.commands().exists(lock.getKey())).as("released in Redis").isZero();
        assertThat(clients.first().heldLocks()).isEmpty();
        assertThat(clients.second().getLock("released-interrupted").tryLock()).isTrue();
        clients.second().getLock("released-interrupted").unlock();
    }

    @Test
    void unlockOnAnInterruptedThreadSendsAgainAReleaseRedisDidNotTakeIn() {
        FaultyConnectionFactory faulty = new FaultyConnectionFactory(redis.newConnectionFactory());
        try (RedisLockClient flaky = RedisLockClient.builder(faulty).build()) {
            ReentrantDistributedLock lock = flaky.getLock("released-interrupted-again");
            lock.lock();
            faulty.failFor(Duration.ofMillis(100)); // the first attempt gets no connection; a later one does
            Thread.currentThread().interrupt();
            lock.unlock();
            assertThat(Thread.interrupted()).as("status kept").isTrue();
            assertThat(redis.commands().exists(lock.getKey())).as("released in Redis").isZero();
            assertThat(flaky.heldLocks()).isEmpty();
        }
    }

    @Test
    void aLossTheWatchdogFoundIsAnsweredLocallyAndTheNextAcquisitionStartsAfresh() throws Exception {
        ReentrantDistributedLock lock = clients.first().getLock("asked-lost");
        lock.lock();
        redis.commands().del(lock.getKey());
        assertThat(lock.isHeldByCurrentThread()).as("not known yet: nothing is asked").isTrue();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).pollInSameThread().until(lock::isLost);
        long before = CommandStats.allCalls(redis.commands());
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(CommandStats.allCalls(redis.commands())).isEqualTo(before);
        assertThat(lock.tryLock()).as("seen lost: a new hold").isTrue();
        assertThat(lock.getHoldCount()).isOne();
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aFixedLeaseThatRanOutIsNotHeld() throws Exception {
        ReentrantDistributedLock lock = clients.first().getLock("asked-leased");
        assertThat(lock.tryLock(0, 200, TimeUnit.MILLISECONDS)).isTrue();
        Thread.sleep(300);
        assertThat(lock.isLost()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }
}
