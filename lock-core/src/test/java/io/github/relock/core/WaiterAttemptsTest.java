package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;


import io.github.relock.core.testing.LockKinds;
import io.github.relock.test.RedisServerExtension;

/**
 * How many attempts a wait sends: each is a script Redis runs for every instance that shares it. A wait that joins
 * other local waiters of the same lock is already subscribed, so it tries once and sleeps; a write release that lets
 * readers in wakes only those readers, not the ones behind a waiting writer.
 */
@Timeout(60)
class WaiterAttemptsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Long enough for an attempt, a subscription and a wake-up on a busy machine. */
    private static final long SETTLE_MILLIS = 400;

    @ParameterizedTest
    @ValueSource(strings = {"plain", "fair", "write", "read"})
    void aWaiterThatJoinsOtherLocalWaitersTriesOnceBeforeItSleeps(String kind) throws Exception {
        String name = "attempts:join:" + kind;
        try (RedisLockClient holderClient = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiters = RedisLockClient.builder(redis.connectionFactory()).build()) {
            // a reader is kept out by a writer; every other kind by a hold of its own kind
            ReentrantDistributedLock held = LockKinds.of(holderClient, kind.equals("read") ? "write" : kind, name);
            held.lock();
            ReentrantDistributedLock lock = LockKinds.of(waiters, kind, name);
            CompletableFuture<Boolean> first = lock.tryLockAsync(WAIT, null, waiters.newOwner());
            settle(); // subscribed and asleep
            long before = evalshaCalls();

            CompletableFuture<Boolean> second = lock.tryLockAsync(WAIT, null, waiters.newOwner());
            settle();

            assertThat(evalshaCalls() - before).as("attempts of a waiter joining a subscribed lock").isEqualTo(1);
            assertThat(first).isNotDone();
            assertThat(second).isNotDone();
            held.unlock();
            assertThat(first.get(10, TimeUnit.SECONDS) || second.get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aWriteReleaseWakesOnlyTheReadersItLetIn() throws Exception {
        String name = "attempts:readers";
        try (RedisLockClient holderClient = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient readers = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient writers = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock held = holderClient.getReadWriteLock(name).writeLock();
            held.lock();
            ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
            LockOwner letIn = readers.newOwner();
            CompletableFuture<Boolean> early = read.tryLockAsync(WAIT, null, letIn);
            settle();
            CompletableFuture<Boolean> writer = writers.getReadWriteLock(name).writeLock().tryLockAsync(WAIT, null,
                    writers.newOwner());
            settle();
            CompletableFuture<Boolean> late = read.tryLockAsync(WAIT, null, readers.newOwner()); // behind the writer
            settle();
            long before = evalshaCalls();

            held.unlock();
            assertThat(early.get(10, TimeUnit.SECONDS)).isTrue();
            settle();

            // the release, and the reader it let in (an explicit owner) taking its hold up; the later reader sleeps on
            assertThat(evalshaCalls() - before).isEqualTo(2);
            assertThat(late).isNotDone();
            assertThat(writer).isNotDone();
            read.unlockAsync(letIn).get(10, TimeUnit.SECONDS);
            assertThat(writer.get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static long evalshaCalls() {
        return CommandStats.calls(redis.commands(), "evalsha");
    }

    private static void settle() throws InterruptedException {
        Thread.sleep(SETTLE_MILLIS);
    }
}
