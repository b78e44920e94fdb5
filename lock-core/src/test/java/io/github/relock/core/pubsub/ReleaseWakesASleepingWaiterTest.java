package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockOwner;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * A waiter sleeping on a lock held with a long lease gets it soon after the holder releases, whatever the kind of
 * lock, whoever holds it (this client's thread, an explicit owner, another client) and whenever the release comes:
 * a lost wake-up would leave it asleep for the whole lease.
 */
@Timeout(300)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ReleaseWakesASleepingWaiterTest {

    private static final long LEASE_SECONDS = 20;
    private static final long SOON_MILLIS = 3_000;

    interface Pair {
        void hold() throws Exception;

        CompletableFuture<Boolean> waitFor() throws Exception;

        void release() throws Exception;
    }

    @Test
    void aReleaseAlwaysWakesTheWaiterWellBeforeTheLeaseEnds() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient a = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient b = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            List<String> slow = new ArrayList<>();
            int rounds = 12;
            for (int i = 0; i < rounds; i++) {
                for (String mode : List.of("thread-same", "thread-other", "owner-same", "async-other", "fair-same",
                        "fair-other", "write-read-same", "write-read-other", "read-write-other", "write-write-same")) {
                    String name = "wake:" + mode + ":" + i;
                    long millis = measure(a, b, name, mode);
                    if (millis >= SOON_MILLIS) {
                        slow.add(mode + " round " + i + ": " + millis + " ms");
                    }
                }
            }
            assertThat(slow).isEmpty();
        }
    }

    private static long measure(RedisLockClient a, RedisLockClient b, String name, String mode) throws Exception {
        boolean same = mode.endsWith("same");
        RedisLockClient waiterClient = same ? a : b;
        // the holder: a thread of client a, blocked until told to release
        CompletableFuture<Void> held = new CompletableFuture<>();
        CompletableFuture<Void> releaseNow = new CompletableFuture<>();
        CompletableFuture<Long> releasedAt = new CompletableFuture<>();
        Thread holder = new Thread(() -> {
            try {
                ReentrantDistributedLock lock = holderLock(a, name, mode);
                lock.lock(LEASE_SECONDS, TimeUnit.SECONDS);
                held.complete(null);
                releaseNow.get();
                lock.unlock();
                releasedAt.complete(System.nanoTime());
            }
            catch (Throwable ex) {
                held.completeExceptionally(ex);
                releasedAt.completeExceptionally(ex);
            }
        });
        holder.start();
        held.get(10, TimeUnit.SECONDS);
        CompletableFuture<Boolean> got = new CompletableFuture<>();
        LockOwner owner = waiterClient.newOwner();
        ReentrantDistributedLock waiting = waiterLock(waiterClient, name, mode, owner);
        Thread waiter = null;
        if (mode.startsWith("owner") || mode.startsWith("async")) {
            waiting.tryLockAsync(Duration.ofSeconds(LEASE_SECONDS * 2), Duration.ofSeconds(5), owner)
                    .whenComplete((ok, failure) -> {
                        if (failure != null) {
                            got.completeExceptionally(failure);
                        }
                        else {
                            got.complete(ok);
                        }
                    });
        }
        else {
            waiter = new Thread(() -> {
                try {
                    boolean ok = waiting.tryLock(LEASE_SECONDS * 2, 5, TimeUnit.SECONDS);
                    got.complete(ok);
                    if (ok) {
                        waiting.unlock();
                    }
                }
                catch (Throwable ex) {
                    got.completeExceptionally(ex);
                }
            });
            waiter.start();
        }
        // release at a random moment: before the waiter sleeps, while it subscribes, or long after
        int pick = ThreadLocalRandom.current().nextInt(4);
        if (pick == 1) {
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
        }
        else if (pick == 2) {
            Thread.sleep(ThreadLocalRandom.current().nextInt(30));
        }
        else if (pick == 3) {
            Thread.sleep(300);
        }
        releaseNow.complete(null);
        long released = releasedAt.get(10, TimeUnit.SECONDS);
        boolean ok;
        try {
            ok = got.get(LEASE_SECONDS * 3, TimeUnit.SECONDS);
        }
        finally {
            holder.join();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        assertThat(ok).as(mode).isTrue();
        if (waiter == null) {
            waiting.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        }
        else {
            waiter.join();
        }
        return millis;
    }

    private static ReentrantDistributedLock holderLock(RedisLockClient client, String name, String mode) {
        if (mode.startsWith("fair")) {
            return client.getFairLock(name);
        }
        if (mode.startsWith("write")) {
            return client.getReadWriteLock(name).writeLock();
        }
        if (mode.startsWith("read")) {
            return client.getReadWriteLock(name).readLock();
        }
        return client.getLock(name);
    }

    private static ReentrantDistributedLock waiterLock(RedisLockClient client, String name, String mode,
            LockOwner owner) {
        boolean explicit = mode.startsWith("owner") || mode.startsWith("async");
        if (mode.startsWith("fair")) {
            return client.getFairLock(name);
        }
        if (mode.startsWith("write-read")) {
            ReadWriteDistributedLock rw = client.getReadWriteLock(name);
            return rw.readLock();
        }
        if (mode.startsWith("read-write") || mode.startsWith("write-write")) {
            return client.getReadWriteLock(name).writeLock();
        }
        return explicit ? client.getLock(name, owner) : client.getLock(name);
    }
}
