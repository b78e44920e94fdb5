package io.github.relock.core.internal.kind;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.Contenders;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.internal.command.Encoding;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.test.RedisServerExtension;

/**
 * A release of a read-write lock that lets waiters in gives them their holds inside its script: they wake
 * holding the lock, each hold known to its client as if it had taken it itself, and a hold given to a waiter
 * that died or stopped waiting goes back.
 */
@Timeout(60)
@Tag("jdk-independent")
class ReadWriteHandOverTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final Contenders contenders = Contenders.onTheSharedFactory(redis);

    RedisLockClient newClient(Duration watchdog) {
        return contenders.newClient(client -> client.keyPrefix("lock:").watchdogTimeout(watchdog));
    }

    static String hash(String name) {
        return ReadWriteSide.keys("lock:", name)[0].lock();
    }

    /** The holds in the hash: fields without a suffix of their own (':e', ':t', ':i', ':g'). */
    static long holds(String name, boolean writer) {
        return redis.commands().hgetall(hash(name)).keySet().stream()
                .filter(f -> writer ? f.endsWith(":w") : !f.matches(".*:[etigw]$")).count();
    }

    @Test
    void readersThatWaitedHoldTheLockAsTheWriterReleasesIt() throws Exception {
        RedisLockClient writerClient = newClient(Duration.ofSeconds(30));
        RedisLockClient readerClient = newClient(Duration.ofSeconds(30));
        ReentrantDistributedLock write = writerClient.getReadWriteLock("doc:1").writeLock();
        write.lock();
        long writerToken = write.fencingToken();
        CountDownLatch leave = new CountDownLatch(1);
        List<Future<long[]>> readers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            readers.add(contenders.pool().submit(() -> {
                ReentrantDistributedLock read = readerClient.getReadWriteLock("doc:1").readLock();
                read.lock();
                try {
                    long[] seen = {read.isHeldByCurrentThread() ? 1 : 0, read.getHoldCount(), read.fencingToken()};
                    leave.await();
                    return seen;
                }
                finally {
                    read.unlock();
                }
            }));
        }
        awaitClaims("doc:1", 2);
        write.unlock();
        assertThat(holds("doc:1", false)).as("both readers hold it as the write hold ends, before they wake").isEqualTo(2);
        leave.countDown();
        List<Long> tokens = new ArrayList<>();
        for (Future<long[]> reader : readers) {
            long[] seen = reader.get(10, TimeUnit.SECONDS);
            assertThat(seen[0]).as("held by the reader's thread").isOne();
            assertThat(seen[1]).as("hold count").isOne();
            assertThat(seen[2]).as("a fencing token after the writer's").isGreaterThan(writerToken);
            tokens.add(seen[2]);
        }
        assertThat(tokens).doesNotHaveDuplicates();
        assertThat(redis.commands().exists(hash("doc:1"))).as("nothing left").isZero();
    }

    @Test
    void theWriterThatWaitedLongestHoldsTheLockAsTheLastReaderLeaves() throws Exception {
        RedisLockClient readerClient = newClient(Duration.ofSeconds(30));
        RedisLockClient writerClient = newClient(Duration.ofSeconds(30));
        ReentrantDistributedLock read = readerClient.getReadWriteLock("doc:2").readLock();
        read.lock();
        CountDownLatch leave = new CountDownLatch(1);
        Future<Boolean> writer = contenders.pool().submit(() -> {
            ReentrantDistributedLock write = writerClient.getReadWriteLock("doc:2").writeLock();
            write.lock();
            try {
                leave.await();
                return write.isHeldByCurrentThread() && write.getHoldCount() == 1;
            }
            finally {
                write.unlock();
            }
        });
        awaitClaims("doc:2", 1);
        read.unlock();
        assertThat(holds("doc:2", true)).as("the writer holds it as the read hold ends").isOne();
        leave.countDown();
        assertThat(writer.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aHoldGivenInAReleaseIsRenewedByTheWatchdogOfTheWaitersClient() throws Exception {
        RedisLockClient writerClient = newClient(Duration.ofSeconds(30));
        RedisLockClient readerClient = newClient(Duration.ofMillis(600));
        ReentrantDistributedLock write = writerClient.getReadWriteLock("doc:3").writeLock();
        write.lock();
        Future<Boolean> reader = contenders.pool().submit(() -> {
            ReentrantDistributedLock read = readerClient.getReadWriteLock("doc:3").readLock();
            read.lock();
            try {
                // past the claim the hold was given for (ReadWriteSide.CLAIM_MILLIS) and several watchdog leases
                Thread.sleep(ReadWriteSide.CLAIM_MILLIS + 800);
                return read.isHeldByCurrentThread() && !read.isLost();
            }
            finally {
                read.unlock();
            }
        });
        awaitClaims("doc:3", 1);
        write.unlock();
        Thread.sleep(ReadWriteSide.CLAIM_MILLIS + 400);
        assertThat(writerClient.getReadWriteLock("doc:3").writeLock().tryLock()).as("the reader still holds it").isFalse();
        assertThat(reader.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aHoldGivenToAWaiterThatDiedEndsWhenItsClaimWouldHave() throws Exception {
        RedisLockClient writerClient = newClient(Duration.ofSeconds(30));
        ReentrantDistributedLock write = writerClient.getReadWriteLock("doc:4").writeLock();
        write.lock();
        ghostClaim("doc:4", "ghost:1", 1_500);
        write.unlock();
        assertThat(redis.commands().hexists(hash("doc:4"), "ghost:1")).as("given to the waiter").isTrue();
        long start = System.nanoTime();
        RedisLockClient next = newClient(Duration.ofSeconds(30));
        ReentrantDistributedLock nextWrite = next.getReadWriteLock("doc:4").writeLock();
        assertThat(nextWrite.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("no longer than the claim")
                .isLessThan(3_000);
        nextWrite.unlock();
    }

    @Test
    void aWaiterThatStoppedWaitingGivesBackTheHoldItWasGiven() throws Exception {
        RedisLockClient writerClient = newClient(Duration.ofSeconds(30));
        ReentrantDistributedLock write = writerClient.getReadWriteLock("doc:5").writeLock();
        write.lock();
        ghostClaim("doc:5", "ghost:1", 10_000);
        write.unlock();
        assertThat(redis.commands().hexists(hash("doc:5"), "ghost:1")).as("given to the waiter").isTrue();
        LockKeys readKeys = ReadWriteSide.keys("lock:", "doc:5")[0];
        new LockCommands(redis.connectionFactory()).send(readKeys.kind().gaveUp(readKeys, Encoding.bytes("ghost:1")));
        assertThat(writerClient.getReadWriteLock("doc:5").writeLock().tryLock()).as("free at once").isTrue();
        writerClient.getReadWriteLock("doc:5").writeLock().unlock();
    }

    @Test
    void aWaiterWhoseClientClosedIsGivenNothingThatHoldsOthersUp() throws Exception {
        RedisLockClient writerClient = newClient(Duration.ofSeconds(30));
        RedisLockClient readerClient = newClient(Duration.ofSeconds(30));
        ReentrantDistributedLock write = writerClient.getReadWriteLock("doc:6").writeLock();
        write.lock();
        Future<?> reader = contenders.pool().submit(() -> {
            readerClient.getReadWriteLock("doc:6").readLock().lock();
            return null;
        });
        awaitClaims("doc:6", 1);
        readerClient.close();
        try {
            reader.get(5, TimeUnit.SECONDS);
        }
        catch (java.util.concurrent.ExecutionException expected) {
            // the closed client ends its waiters' wait
        }
        write.unlock();
        ReentrantDistributedLock next = newClient(Duration.ofSeconds(30)).getReadWriteLock("doc:6").writeLock();
        long start = System.nanoTime();
        assertThat(next.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("nothing left to the closed client's waiter")
                .isLessThan(500);
        next.unlock();
    }

    /** A reader's claim written as rw-acquire.lua writes it, by a waiter that then does nothing more. */
    static void ghostClaim(String name, String field, long keepMillis) {
        long now = System.currentTimeMillis();
        redis.commands().hset(hash(name), Map.of(field + ":i", (now + keepMillis) + ":" + (now - 1)));
    }

    static void awaitClaims(String name, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (redis.commands().hgetall(hash(name)).keySet().stream().filter(f -> f.endsWith(":i")).count() < count) {
            assertThat(System.nanoTime()).as("waiters queued").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
