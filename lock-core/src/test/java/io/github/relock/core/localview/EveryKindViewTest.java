package io.github.relock.core.localview;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.MultiLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.TwoClients;
import io.github.relock.test.RedisServerExtension;

/**
 * Fair, read and write locks read as not held within a watchdog round of Redis losing them, as plain locks do;
 * an interrupted thread's {@code lock()} on a busy lock, plain or multi, waits, acquires and keeps its status,
 * and its {@code tryLock()} on a free lock acquires.
 */
@Timeout(60)
class EveryKindViewTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final TwoClients clients = new TwoClients(
            () -> RedisLockClient.builder(redis.newConnectionFactory()).watchdogTimeout(Duration.ofMillis(1500))
                    .build(),
            () -> RedisLockClient.builder(redis.newConnectionFactory()).build());

    @Test
    void fairReadAndWriteLocksReadAsNotHeldWithinAWatchdogRoundOfAFlush() throws Exception {
        assertBound("fair", (c, n) -> c.getFairLock(n));
        assertBound("read", (c, n) -> c.getReadWriteLock(n).readLock());
        assertBound("write", (c, n) -> c.getReadWriteLock(n).writeLock());
    }

    private void assertBound(String kind, BiFunction<RedisLockClient, String, ReentrantDistributedLock> lockOf)
            throws Exception {
        String name = "every-kind:" + kind;
        ReentrantDistributedLock lock = lockOf.apply(clients.first(), name);
        lock.lock();
        redis.commands().flushall();
        long flushed = System.nanoTime();
        ReentrantDistributedLock theirs = lockOf.apply(clients.second(), name);
        assertThat(theirs.tryLock(2, TimeUnit.SECONDS)).as(kind).isTrue();
        while (lock.isHeldByCurrentThread() && System.nanoTime() - flushed < TimeUnit.SECONDS.toNanos(10)) {
            Thread.sleep(2);
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - flushed);
        System.out.printf("%s lock read as held for %d ms after a FLUSHALL (bound 500 ms)%n", kind, ms);
        assertThat(ms).as(kind).isLessThan(750);
        assertThat(lock.isLost()).as(kind).isTrue();
        theirs.unlock();
    }

    @Test
    void anInterruptedThreadWaitsForABusyLockAndKeepsItsStatus() throws Exception {
        ReentrantDistributedLock held = clients.second().getLock("busy-interrupted");
        held.lock();
        CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> {
            Thread.currentThread().interrupt();
            ReentrantDistributedLock lock = clients.first().getLock("busy-interrupted");
            MultiLock multi = clients.first().getMultiLock("busy-interrupted", "busy-interrupted:2");
            long started = System.nanoTime();
            lock.lock();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            boolean kept = Thread.currentThread().isInterrupted();
            lock.unlock();
            Thread.currentThread().interrupt();
            boolean free = clients.first().getLock("busy-interrupted:free").tryLock();
            clients.first().getLock("busy-interrupted:free").unlock();
            multi.lock();
            boolean keptMulti = Thread.currentThread().isInterrupted();
            multi.unlock();
            Thread.interrupted();
            return waited + " " + kept + " " + free + " " + keptMulti;
        });
        Thread.sleep(400);
        held.unlock();
        String result = waiter.get(10, TimeUnit.SECONDS);
        System.out.printf("interrupted lock(): waited ms, kept status, tryLock() on a free lock, multi kept: %s%n",
                result);
        String[] parts = result.split(" ");
        assertThat(Long.parseLong(parts[0])).isGreaterThanOrEqualTo(300);
        assertThat(parts[1]).isEqualTo("true");
        assertThat(parts[2]).isEqualTo("true");
        assertThat(parts[3]).isEqualTo("true");
    }
}
