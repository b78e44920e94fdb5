package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * Each side of a read-write lock answers for its own holds ({@code isLocked}, {@code forceUnlock},
 * {@code remainingLease}), and the lock itself for all of them, against a real redis-server.
 */
@Timeout(60)
class ReadWriteSidesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<RedisLockClient> clients = new ArrayList<>();
    final ExecutorService pool = Executors.newCachedThreadPool();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = newClient();
        other = newClient();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        clients.forEach(RedisLockClient::close);
    }

    RedisLockClient newClient() {
        RedisLockClient created = RedisLockClient.builder(redis.connectionFactory())
                .watchdogTimeout(Duration.ofSeconds(30)).build();
        clients.add(created);
        return created;
    }

    @Test
    void theReadSideIsLockedOnlyWhileAReadHoldExists() {
        ReadWriteDistributedLock doc = client.getReadWriteLock("sides:1");
        ReadWriteDistributedLock seen = other.getReadWriteLock("sides:1");
        doc.writeLock().lock();
        assertThat(seen.readLock().isLocked()).as("only a writer holds").isFalse();
        assertThat(seen.writeLock().isLocked()).isTrue();
        assertThat(seen.isLocked()).isTrue();
        doc.writeLock().unlock();
        assertThat(seen.isLocked()).isFalse();
    }

    @Test
    void theWriteSideIsLockedOnlyWhileTheWriteHoldExists() {
        ReadWriteDistributedLock doc = client.getReadWriteLock("sides:2");
        ReadWriteDistributedLock seen = other.getReadWriteLock("sides:2");
        doc.readLock().lock();
        assertThat(seen.writeLock().isLocked()).as("only a reader holds").isFalse();
        assertThat(seen.readLock().isLocked()).isTrue();
        assertThat(seen.isLocked()).isTrue();
        doc.readLock().unlock();
        assertThat(seen.readLock().isLocked()).isFalse();
        assertThat(seen.isLocked()).isFalse();
    }

    @Test
    void forceUnlockingTheWriteSideLeavesReadersAlone() {
        ReadWriteDistributedLock doc = client.getReadWriteLock("sides:3");
        doc.readLock().lock();
        assertThat(other.getReadWriteLock("sides:3").writeLock().forceUnlock()).as("no write hold to end").isFalse();
        assertThat(doc.readLock().isHeldByCurrentThread()).isTrue();
        doc.readLock().unlock();
    }

    @Test
    void forceUnlockingTheWriteSideEndsTheWriteHoldAndKeepsTheDowngradedReadHold() {
        ReadWriteDistributedLock doc = client.getReadWriteLock("sides:4");
        doc.writeLock().lock();
        doc.readLock().lock();
        ReadWriteDistributedLock seen = other.getReadWriteLock("sides:4");
        assertThat(seen.writeLock().forceUnlock()).isTrue();
        assertThat(seen.writeLock().isLocked()).isFalse();
        assertThat(seen.readLock().isLocked()).isTrue();
        assertThatThrownBy(doc.writeLock()::unlock).isInstanceOf(LockLostException.class);
        doc.readLock().unlock();
        assertThat(seen.isLocked()).isFalse();
    }

    @Test
    void forceUnlockingTheReadSideEndsReadHoldsOnly() {
        ReadWriteDistributedLock doc = client.getReadWriteLock("sides:5");
        doc.writeLock().lock();
        doc.readLock().lock();
        ReadWriteDistributedLock seen = other.getReadWriteLock("sides:5");
        assertThat(seen.readLock().forceUnlock()).isTrue();
        assertThat(seen.readLock().isLocked()).isFalse();
        assertThat(seen.writeLock().isLocked()).isTrue();
        assertThatThrownBy(doc.readLock()::unlock).isInstanceOf(LockLostException.class);
        doc.writeLock().unlock();
        assertThat(seen.readLock().forceUnlock()).as("nothing left to end").isFalse();
    }

    @Test
    void forceUnlockingTheWriteSideLetsAWaitingReaderIn() throws Exception {
        ReadWriteDistributedLock doc = client.getReadWriteLock("sides:6");
        doc.writeLock().lock();
        RedisLockClient readerClient = newClient();
        Future<Boolean> reader = pool.submit(() -> {
            ReentrantDistributedLock read = readerClient.getReadWriteLock("sides:6").readLock();
            boolean got = read.tryLock(10, TimeUnit.SECONDS);
            if (got) {
                read.unlock();
            }
            return got;
        });
        Thread.sleep(200);
        assertThat(other.getReadWriteLock("sides:6").writeLock().forceUnlock()).isTrue();
        assertThat(reader.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void eachSideReportsTheLeaseOfItsOwnHolds() throws Exception {
        ReadWriteDistributedLock doc = client.getReadWriteLock("sides:7");
        assertThat(doc.writeLock().tryLock(0, 20_000, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(doc.readLock().tryLock(0, 2_000, TimeUnit.MILLISECONDS)).isTrue();
        ReadWriteDistributedLock seen = other.getReadWriteLock("sides:7");
        assertThat(seen.readLock().remainingLease()).isLessThanOrEqualTo(Duration.ofSeconds(2)).isPositive();
        assertThat(seen.writeLock().remainingLease()).isGreaterThan(Duration.ofSeconds(10));
        doc.writeLock().unlock();
        assertThat(seen.writeLock().remainingLease()).as("no write hold").isZero();
        assertThat(seen.readLock().remainingLease()).isPositive();
        doc.readLock().unlock();
    }

    @Test
    void theWholeLockForceUnlocksEveryHold() {
        ReadWriteDistributedLock doc = client.getReadWriteLock("sides:8");
        doc.writeLock().lock();
        doc.readLock().lock();
        ReadWriteDistributedLock seen = other.getReadWriteLock("sides:8");
        assertThat(seen.forceUnlock()).isTrue();
        assertThat(seen.isLocked()).isFalse();
        assertThatThrownBy(doc.readLock()::unlock).isInstanceOf(LockLostException.class);
        assertThatThrownBy(doc.writeLock()::unlock).isInstanceOf(LockLostException.class);
        assertThat(seen.forceUnlock()).isFalse();
    }

    @Test
    void isAJavaReadWriteLock() throws Exception {
        ReadWriteLock plain = client.getReadWriteLock("sides:9");
        assertThat(plain.writeLock().tryLock(1, TimeUnit.SECONDS)).isTrue();
        plain.writeLock().unlock();
        ReentrantDistributedLock read = client.getReadWriteLock("sides:9").readLock();
        assertThat(read.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(5))).isTrue();
        assertThat(read.remainingLease()).isLessThanOrEqualTo(Duration.ofSeconds(5));
        read.unlock();
    }
}
