package io.github.relock.core.interrupts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * An interrupt at any point of a lock call neither cuts a Redis call short nor leaves a hold behind: the call's
 * outcome matches what Redis holds, an interrupted unlock() still releases, and the interrupt status is kept.
 */
@Timeout(60)
@Tag("redis-version-independent")
class InterruptedCallsLeaveNoHoldTest {

    @Test
    void anInterruptedUnlockReleasesAndKeepsTheStatus() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("int:unlock");
            lock.lock();
            Thread.currentThread().interrupt();
            lock.unlock();
            assertThat(Thread.interrupted()).isTrue();
            assertThat(server.commands().exists("lock:{int:unlock}")).isZero();
        }
    }

    @Test
    void aPendingInterruptLetsLockAcquireAndIsKept() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("int:pending");
            Thread.currentThread().interrupt();
            lock.lock();
            boolean kept = Thread.interrupted();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            lock.unlock();
            assertThat(kept).isTrue();
            Thread.currentThread().interrupt();
            assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
            assertThat(server.commands().exists("lock:{int:pending}")).isZero();
        }
    }

    /** The JDK idiom on a pool shut down with shutdownNow(): the release runs although the thread is interrupted. */
    @Test
    void theHeldByCurrentThreadIdiomReleasesOnAPoolShutDownNow() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory())
                        .watchdogTimeout(Duration.ofSeconds(1)).build()) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            CountDownLatch inside = new CountDownLatch(2);
            for (int i = 0; i < 2; i++) {
                String name = "int:pool:" + i;
                pool.execute(() -> {
                    ReentrantDistributedLock lock = client.getLock(name);
                    lock.lock();
                    try {
                        inside.countDown();
                        Thread.sleep(30_000);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    finally {
                        if (lock.isHeldByCurrentThread()) {
                            lock.unlock();
                        }
                    }
                });
            }
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            assertThat(server.commands().exists("lock:{int:pool:0}", "lock:{int:pool:1}")).isZero();
            Thread.sleep(1_500); // no renewal brings them back
            assertThat(server.commands().exists("lock:{int:pool:0}", "lock:{int:pool:1}")).isZero();
            assertThat(client.heldLocks()).isEmpty();
        }
    }

    @Test
    void aWaiterInterruptedWhileWaitingLeavesNoHold() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient holder = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock held = holder.getLock("int:wait");
            held.lock();
            for (int round = 0; round < 20; round++) {
                AtomicReference<Object> outcome = new AtomicReference<>();
                Thread waiter = new Thread(() -> {
                    ReentrantDistributedLock lock = client.getLock("int:wait");
                    try {
                        outcome.set(lock.tryLock(10, TimeUnit.SECONDS));
                    }
                    catch (Throwable ex) {
                        outcome.set(ex);
                    }
                    if (lock.isHeldByCurrentThread()) {
                        lock.unlock();
                    }
                });
                waiter.start();
                Thread.sleep(round * 7L % 50);
                if (round % 2 == 0) {
                    held.unlock(); // released as the interrupt comes: the waiter may take the lock, then give it back
                }
                waiter.interrupt();
                waiter.join(15_000);
                assertThat(waiter.isAlive()).isFalse();
                if (round % 2 == 0) {
                    held.lock();
                }
                assertThat(server.commands().hgetall("lock:{int:wait}")).as("round %d: %s", round, outcome.get())
                        .containsOnlyKeys(holderField(server));
            }
            held.unlock();
        }
    }

    /** Interrupted while Redis is frozen: the call waits for its reply, and its result matches what Redis holds. */
    @Test
    void anInterruptWhileRedisIsFrozenLeavesTheOutcomeKnown() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(5)))
                        .build()) {
            ReentrantDistributedLock warm = client.getLock("int:frozen:warm");
            warm.lock();
            warm.unlock();
            server.pause();
            CompletableFuture<Object> outcome = new CompletableFuture<>();
            AtomicReference<Boolean> heldAfter = new AtomicReference<>();
            Thread caller = new Thread(() -> {
                ReentrantDistributedLock lock = client.getLock("int:frozen");
                try {
                    outcome.complete(lock.tryLock());
                }
                catch (Throwable ex) {
                    outcome.complete(ex);
                }
                heldAfter.set(lock.isHeldByCurrentThread());
                Thread.interrupted();
                if (lock.isHeldByCurrentThread()) {
                    lock.unlock();
                }
            });
            caller.start();
            Thread.sleep(300);
            caller.interrupt();
            Thread.sleep(700);
            server.resume();
            caller.join(15_000);
            assertThat(caller.isAlive()).isFalse();
            assertThat(outcome.get()).isEqualTo(Boolean.TRUE);
            assertThat(heldAfter.get()).isTrue();
            assertThat(server.commands().exists("lock:{int:frozen}")).isZero();
        }
    }

    private static String holderField(RedisServer server) {
        return server.commands().hkeys("lock:{int:wait}").stream().filter(k -> !k.startsWith("F:")).findFirst()
                .orElse("none");
    }
}
