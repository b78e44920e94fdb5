package io.github.relock.core.localview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.MultiLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.TwoClients;
import io.github.relock.test.RedisServerExtension;

/**
 * The owner's local view of its holds ({@code isHeldByCurrentThread()}, {@code getHoldCount()}, {@code isLost()})
 * turns false within its documented bound once another client can hold the lock, and a multi-lock keeps its
 * wait budget and leaves no lock behind when it gives up; interrupted threads follow the JDK's Lock contract.
 */
@Timeout(60)
@Tag("redis-version-independent")
class LocalViewBoundTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final TwoClients clients = new TwoClients(
            () -> RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(Duration.ofMillis(1500)).build(),
            () -> RedisLockClient.builder(redis.newConnectionFactory()).build());

    @Test
    void aFixedLeaseReadsAsNotHeldOnceItEndsByTheLocalClock() throws Exception {
        ReentrantDistributedLock lock = clients.first().getLock("view-fixed");
        long sent = System.nanoTime();
        lock.lock(300, TimeUnit.MILLISECONDS);
        ReentrantDistributedLock theirs = clients.second().getLock("view-fixed");
        assertThat(theirs.tryLock(5, TimeUnit.SECONDS)).isTrue();
        long tookAt = System.nanoTime();
        boolean held = lock.isHeldByCurrentThread();
        System.out.printf("fixed lease: other took it %d ms after sending; owner still thinks held: %s%n",
                TimeUnit.NANOSECONDS.toMillis(tookAt - sent), held);
        assertThat(held).isFalse();
        assertThat(lock.isLost()).isTrue();
        theirs.unlock();
    }

    @Test
    void aFlushedWatchdogHoldReadsAsNotHeldWithinAWatchdogRound() throws Exception {
        ReentrantDistributedLock lock = clients.first().getLock("view-flushed");
        lock.lock();
        redis.commands().flushall();
        long flushed = System.nanoTime();
        ReentrantDistributedLock theirs = clients.second().getLock("view-flushed");
        assertThat(theirs.tryLock()).isTrue();
        while (lock.isHeldByCurrentThread() && System.nanoTime() - flushed < TimeUnit.SECONDS.toNanos(10)) {
            Thread.sleep(5);
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - flushed);
        System.out.printf("flushed watchdog hold read as held for %d ms (bound 500 ms)%n", ms);
        assertThat(ms).isLessThan(500 + 250);
        theirs.unlock();
    }

    @Test
    void interruptedThreadsFollowTheJdkLockContract() throws Exception {
        ReentrantDistributedLock lock = clients.first().getLock("view-interrupted");
        MultiLock multi = clients.first().getMultiLock("view-m1", "view-m2");
        Thread.currentThread().interrupt();
        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> multi.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        Thread.currentThread().interrupt();
        assertThatThrownBy(multi::lockInterruptibly).isInstanceOf(InterruptedException.class);
        assertThat(clients.second().getLock("view-interrupted").isLocked()).isFalse();
        assertThat(clients.second().getLock("view-m1").isLocked() || clients.second().getLock("view-m2").isLocked())
                .isFalse();

        Thread.currentThread().interrupt();
        lock.lock();
        multi.lock();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        lock.unlock();
        assertThat(Thread.interrupted()).isTrue();
        assertThat(clients.second().getLock("view-interrupted").isLocked()).isFalse();
        assertThat(clients.second().getLock("view-m1").isLocked() || clients.second().getLock("view-m2").isLocked())
                .isFalse();
    }

    @Test
    void aMultiLockKeepsItsWaitBudgetAndLeavesNothingBehind() throws Exception {
        ReentrantDistributedLock blocker = clients.second().getLock("budget-b");
        blocker.lock();
        MultiLock multi = clients.first().getMultiLock(List.of("budget-a", "budget-b", "budget-c", "budget-b"), null);
        long started = System.nanoTime();
        boolean got = multi.tryLock(2, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        started = System.nanoTime();
        boolean gotLeased = multi.tryLock(2000, 100, TimeUnit.MILLISECONDS);
        long leasedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("multi-lock 2 s wait took %d ms, with 100 ms lease %d ms%n", ms, leasedMs);
        assertThat(got).isFalse();
        assertThat(gotLeased).isFalse();
        assertThat(ms).isBetween(1900L, 2300L);
        assertThat(leasedMs).isBetween(1900L, 2300L);
        assertThat(redis.commands().exists(clients.first().redisKeys("budget-a").lock(),
                clients.first().redisKeys("budget-c").lock())).isZero();
        assertThat(clients.first().heldLocks()).isEmpty();
        blocker.unlock();
    }
}
