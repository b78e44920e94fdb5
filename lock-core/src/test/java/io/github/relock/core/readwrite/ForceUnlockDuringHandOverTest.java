package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * A force-unlock that comes as a read-write release hands the lock to a waiting reader: a reader that reports the
 * lock holds it in Redis, so a writer of another client is kept out for as long as the reader holds it.
 */
@Timeout(120)
@Tag("jdk-independent")
class ForceUnlockDuringHandOverTest {

    @Test
    void aReaderThatReportsTheLockHoldsItAfterAForceUnlockDuringTheHandOver() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient holderClient = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient readerClient = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient rivalClient = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            for (int round = 0; round < 16; round++) {
                String name = "forced-handover:" + round;
                ReadWriteDistributedLock held = holderClient.getReadWriteLock(name);
                held.writeLock().lock();
                AtomicReference<Object> outcome = new AtomicReference<>();
                AtomicReference<Boolean> rivalGot = new AtomicReference<>();
                java.util.concurrent.CountDownLatch checked = new java.util.concurrent.CountDownLatch(1);
                java.util.concurrent.CountDownLatch reported = new java.util.concurrent.CountDownLatch(1);
                Thread reader = new Thread(() -> {
                    ReentrantDistributedLock read = readerClient.getReadWriteLock(name).readLock();
                    try {
                        outcome.set(read.tryLock(10, TimeUnit.SECONDS));
                        reported.countDown();
                        checked.await(10, TimeUnit.SECONDS);
                        if (read.isHeldByCurrentThread()) {
                            read.unlock();
                        }
                    }
                    catch (Throwable ex) {
                        outcome.set(ex);
                        reported.countDown();
                    }
                });
                reader.start();
                HandOverToAWaiterThatLeavesTest.awaitWaiting(server, held.writeLock().getKey(), name);
                Thread unlocker = new Thread(() -> held.writeLock().unlock());
                unlocker.start();
                Thread.sleep(round % 3);
                rivalClient.getReadWriteLock(name).writeLock().forceUnlock();
                unlocker.join();
                assertThat(reported.await(15, TimeUnit.SECONDS)).isTrue();
                if (Boolean.TRUE.equals(outcome.get())) {
                    ReentrantDistributedLock rival = rivalClient.getReadWriteLock(name).writeLock();
                    rivalGot.set(rival.tryLock());
                    if (rivalGot.get()) {
                        rival.unlock();
                    }
                }
                checked.countDown();
                reader.join(15_000);
                assertThat(rivalGot.get()).as("round %d: reader %s", round, outcome.get()).isNotEqualTo(Boolean.TRUE);
            }
        }
    }
}
