package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * User code that misbehaves in the client's callbacks (a lost-lock listener that throws an Error or closes the
 * client, asynchronous waits completed by hand) leaves the client clean and the lock free.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class MisbehavingCallbacksTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /**
     * A listener that throws an Error and one that closes the client from the watchdog's thread: the client
     * closes, its threads end, its waiters end, nothing stays subscribed.
     */
    @Test
    void listenerErrorAndCloseFromTheWatchdog() throws Exception {
        RedisCommands<String, String> server = redis.commands();
        List<String> base = Probe.channels(server);
        AtomicReference<RedisLockClient> self = new AtomicReference<>();
        AtomicInteger heard = new AtomicInteger();
        RedisLockClient client = RedisLockClient.builder(redis.newConnectionFactory())
                .watchdogTimeout(Duration.ofSeconds(1))
                .lockLostListener(e -> {
                    throw new OutOfMemoryError("bk5 listener");
                })
                .lockLostListener(e -> {
                    heard.incrementAndGet();
                    self.get().close();
                })
                .build();
        self.set(client);
        RedisLockClient other = RedisLockClient.builder(redis.newConnectionFactory()).build();
        String id = client.getClientId();
        try {
            ReentrantDistributedLock held = client.getLock("bk5:err:held");
            held.lock();
            other.getLock("bk5:err:busy").lock();
            CompletableFuture<Boolean> waiting = client.getLock("bk5:err:busy")
                    .tryLockAsync(Duration.ofSeconds(30), null, client.newOwner());
            Thread.sleep(300);
            assertThat(other.getLock("bk5:err:held").forceUnlock()).isTrue();
            assertThat(Probe.eventually(3_000, client::isClosed)).as("closed by the listener").isTrue();
            assertThat(heard.get()).isEqualTo(1);
            assertThat(Probe.eventually(2_000, waiting::isDone)).isTrue();
            assertThat(waiting).isCompletedExceptionally();
            assertThat(Probe.eventually(3_000, () -> Probe.relockThreads(id).isEmpty()))
                    .as("threads: %s", Probe.relockThreads(id)).isTrue();
            assertThat(Probe.eventually(2_000, () -> Probe.channels(server).equals(base)))
                    .as("channels: %s", Probe.channels(server)).isTrue();
        }
        finally {
            client.close();
            other.close();
        }
    }

    /**
     * Async waits completed by hand (false, or with an Error) in bulk while the holder releases again and
     * again: a lock taken just as that happened is given back, so the lock ends free, and nothing is held,
     * subscribed or in line.
     */
    @Test
    void handCompletedWaitsRacingReleasesLeaveTheLockFree() throws Exception {
        RedisCommands<String, String> server = redis.commands();
        RedisLockClient holder = RedisLockClient.builder(redis.newConnectionFactory()).build();
        RedisLockClient waiter = RedisLockClient.builder(redis.newConnectionFactory()).build();
        try {
            for (int round = 0; round < 20; round++) {
                String name = "bk5:race:" + round;
                ReentrantDistributedLock held = holder.getLock(name);
                held.lock();
                ReentrantDistributedLock lock = waiter.getLock(name);
                List<CompletableFuture<Boolean>> futures = new ArrayList<>();
                List<io.github.relock.core.LockOwner> owners = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    owners.add(waiter.newOwner());
                    futures.add(lock.tryLockAsync(Duration.ofSeconds(10), null, owners.get(i)));
                }
                Thread.sleep(100);
                held.unlock(); // the lock is kept for the waiter's turn; a waiter takes it right now
                for (int i = 0; i < futures.size(); i++) {
                    boolean mine = i % 2 == 0 ? futures.get(i).complete(false)
                            : futures.get(i).completeExceptionally(new StackOverflowError("bk5"));
                    if (!mine && Boolean.TRUE.equals(futures.get(i).getNow(null))) {
                        waiter.getLock(name, owners.get(i)).unlockAsync(owners.get(i)).get(2, TimeUnit.SECONDS);
                    }
                }
                String key = held.getKey();
                // any hold taken in the race is given back: the lock is free soon, for another client too
                assertThat(Probe.eventually(2_000, () -> server.exists(key) == 0))
                        .as("round %d: lock hash %s", round, server.hgetall(key)).isTrue();
                assertThat(Probe.eventually(2_000, () -> waiter.heldLocks().isEmpty()))
                        .as("round %d: held %s", round, waiter.heldLocks()).isTrue();
                assertThat(Probe.eventually(2_000,
                        () -> Probe.numsub(server, waiter.redisKeys(name).releaseChannel()) == 0)).isTrue();
                assertThat(holder.getLock(name).tryLock(1, TimeUnit.SECONDS)).as("round %d", round).isTrue();
                holder.getLock(name).unlock();
            }
        }
        finally {
            holder.close();
            waiter.close();
        }
    }
}
