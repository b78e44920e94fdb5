package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * No pub/sub connection can be opened, commands work: every waiter polls. Fair locks (named wake-ups) and
 * read-write locks (wake-all) must still hand the lock to every waiter in turn, never to two writers at once,
 * and a wait that is interrupted in its pause between subscriptions must end.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class PollingKindsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void fairAndReadWriteWaitersAllGetTheirTurnByPolling() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), Duration.ofSeconds(1)))
                        .build()) {
            ResubscribeCloseTest.warmUp(waiter);
            proxy.refuseNew(true);
            ReentrantDistributedLock fairHeld = holder.getFairLock("bk7:fair");
            fairHeld.lock();
            holder.getReadWriteLock("bk7:rw").writeLock().lock();
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            List<CompletableFuture<Boolean>> waits = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                waits.add(run(() -> exclusive(waiter.getFairLock("bk7:fair"), inside, overlaps)));
            }
            AtomicInteger writers = new AtomicInteger();
            for (int i = 0; i < 4; i++) {
                ReadWriteDistributedLock rw = waiter.getReadWriteLock("bk7:rw");
                waits.add(run(() -> exclusive(rw.writeLock(), writers, overlaps)));
                waits.add(run(() -> {
                    boolean got = rw.readLock().tryLock(15, TimeUnit.SECONDS);
                    if (got) {
                        rw.readLock().unlock();
                    }
                    return got;
                }));
            }
            LockOwner owner = waiter.newOwner();
            CompletableFuture<Boolean> async = waiter.getFairLock("bk7:fair").tryLockAsync(Duration.ofSeconds(15),
                    Duration.ofSeconds(5), owner);
            Thread.sleep(500);
            fairHeld.unlock();
            holder.getReadWriteLock("bk7:rw").writeLock().unlock();
            for (CompletableFuture<Boolean> wait : waits) {
                assertThat(wait.get(25, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(async.get(25, TimeUnit.SECONDS)).isTrue();
            waiter.getFairLock("bk7:fair").unlockAsync(owner).get(5, TimeUnit.SECONDS);
            assertThat(overlaps.get()).isZero();
        }
    }

    @Test
    void aWaitInterruptedInItsPauseEnds() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), Duration.ofSeconds(1)))
                        .build()) {
            ResubscribeCloseTest.warmUp(waiter);
            proxy.refuseNew(true);
            holder.getLock("bk7:intr").lock();
            ReentrantDistributedLock lock = waiter.getLock("bk7:intr");
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    lock.lockInterruptibly();
                    outcome.complete(null);
                }
                catch (Throwable ex) {
                    outcome.complete(ex);
                }
            });
            thread.start();
            Thread.sleep(550);
            thread.interrupt();
            assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            // and a cancelled async wait in its pause leaves nothing behind
            CompletableFuture<Boolean> async = lock.tryLockAsync(Duration.ofSeconds(20), null, waiter.newOwner());
            Thread.sleep(350);
            async.cancel(false);
            Thread.sleep(300);
            holder.getLock("bk7:intr").unlock();
            assertThat(lock.tryLock(2, TimeUnit.SECONDS)).isTrue();
            lock.unlock();
        }
    }

    interface Body {
        Boolean call() throws Exception;
    }

    private static CompletableFuture<Boolean> run(Body body) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(body.call());
            }
            catch (Throwable ex) {
                result.completeExceptionally(ex);
            }
        });
        thread.setDaemon(true);
        thread.start();
        return result;
    }

    private static boolean exclusive(Lock lock, AtomicInteger inside, AtomicInteger overlaps) throws Exception {
        if (!lock.tryLock(15, TimeUnit.SECONDS)) {
            return false;
        }
        try {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            Thread.sleep(20);
            inside.decrementAndGet();
            return true;
        }
        finally {
            lock.unlock();
        }
    }
}
