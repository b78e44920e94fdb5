package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServer;

/**
 * A reader that asks for the write lock of the same name (an upgrade) is refused or times out within its wait, and
 * leaves the lock as it was: its read hold stays, and once it releases nothing is locked.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class UpgradeAttemptTest {

    @Test
    void anUpgradeAttemptEndsWithinItsWaitAndLeavesNothing() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReadWriteDistributedLock rw = client.getReadWriteLock("upgrade");
            rw.readLock().lock();
            long start = System.nanoTime();
            String outcome;
            try {
                outcome = String.valueOf(rw.writeLock().tryLock(500, TimeUnit.MILLISECONDS));
            }
            catch (RuntimeException ex) {
                outcome = ex.getClass().getSimpleName();
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(millis).as(outcome).isLessThan(1_500);
            assertThat(outcome).isNotEqualTo("true");
            assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
            rw.readLock().unlock();
            assertThat(server.commands().exists(rw.readLock().getKey())).isZero();
            assertThat(server.commands().exists(rw.writeLock().getKey())).isZero();
            assertThat(rw.writeLock().tryLock()).isTrue();
            rw.readLock().lock(); // a downgrade is allowed
            rw.writeLock().unlock();
            rw.readLock().unlock();
            assertThat(client.heldLocks()).isEmpty();
        }
    }
}
