package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

@Timeout(30)
class ReentrancyTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient otherClient;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).build();
        otherClient = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherClient.close();
    }

    @Test
    void reentersToDepthFiveAndCountsHolds() {
        ReentrantDistributedLock lock = client.getLock("order:42");
        for (int depth = 1; depth <= 5; depth++) {
            lock.lock();
            assertThat(lock.getHoldCount()).isEqualTo(depth);
            String owner = client.heldLocks().get(0).ownerId();
            assertThat(redis.commands().hget(lock.getKey(), owner)).as("nested levels are counted in the client")
                    .isEqualTo("1");
        }
        long token = lock.fencingToken();
        for (int depth = 4; depth >= 0; depth--) {
            lock.unlock();
            assertThat(lock.getHoldCount()).isEqualTo(depth);
            if (depth > 0) {
                assertThat(lock.fencingToken()).as("re-entry keeps the token").isEqualTo(token);
            }
        }
        assertThat(lock.isLocked()).isFalse();
        assertThat(redis.commands().exists(lock.getKey())).isZero();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void anotherThreadCannotUnlockAndChangesNothing() throws Exception {
        ReentrantDistributedLock lock = client.getLock("order:7");
        lock.lock();
        lock.lock();
        Map<String, String> before = redis.commands().hgetall(lock.getKey());
        long ttlBefore = redis.commands().pttl(lock.getKey());

        Throwable failure = CompletableFuture.supplyAsync(() -> {
            try {
                client.getLock("order:7").unlock();
                return null;
            }
            catch (Throwable ex) {
                return ex;
            }
        }).get(5, TimeUnit.SECONDS);

        assertThat(failure).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("order:7");
        assertThat(redis.commands().hgetall(lock.getKey())).isEqualTo(before);
        assertThat(redis.commands().pttl(lock.getKey())).isBetween(ttlBefore - 2_000, ttlBefore);
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        lock.unlock();
    }

    @Test
    void anotherClientCannotUnlockOrEnter() throws Exception {
        ReentrantDistributedLock mine = client.getLock("order:8");
        mine.lock();
        Map<String, String> before = redis.commands().hgetall(mine.getKey());

        ReentrantDistributedLock theirs = otherClient.getLock("order:8");
        assertThatThrownBy(theirs::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(theirs.tryLock()).isFalse();
        assertThat(theirs.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(theirs.isHeldByCurrentThread()).isFalse();
        assertThat(theirs.isLocked()).isTrue();
        assertThat(redis.commands().hgetall(mine.getKey())).isEqualTo(before);
        mine.unlock();
        assertThat(theirs.tryLock()).isTrue();
        theirs.unlock();
    }

    @Test
    void leasedLockExpiresAndUnlockReportsTheLoss() throws Exception {
        ReentrantDistributedLock lock = client.getLock("short");
        assertThat(lock.tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(lock.remainingLease()).isBetween(Duration.ofMillis(1), Duration.ofMillis(300));
        Thread.sleep(450);
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.isLost()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class).hasMessageContaining("short");
        assertThat(otherClient.getLock("short").tryLock()).isTrue();
    }

    @Test
    void reentryNeverShortensTheLease() throws Exception {
        ReentrantDistributedLock lock = client.getLock("lease");
        assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.tryLock(0, 1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.remainingLease()).isGreaterThan(Duration.ofSeconds(5));
        lock.unlock();
        lock.unlock();
    }

    @Test
    void explicitOwnerAcquiresOnOneThreadAndReleasesOnAnother() throws Exception {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock("job:1", owner);
        CompletableFuture<Void> chain = CompletableFuture
                .runAsync(lock::lock)
                .thenRunAsync(() -> assertThat(lock.getHoldCount()).isEqualTo(1))
                .thenRunAsync(lock::unlock);
        chain.get(10, TimeUnit.SECONDS);
        assertThat(lock.isLocked()).isFalse();

        lock.lock();
        assertThat(client.getLock("job:1").tryLock()).as("the thread is not the owner").isFalse();
        assertThatThrownBy(() -> client.getLock("job:1").unlock()).isInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
        assertThatThrownBy(() -> otherClient.getLock("job:1", owner)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void forceUnlockFreesTheLockAndStalesTheHoldersToken() {
        ReentrantDistributedLock lock = client.getLock("stuck");
        lock.lock();
        long token = lock.fencingToken();
        assertThat(otherClient.getLock("stuck").forceUnlock()).isTrue();
        assertThat(otherClient.getLock("stuck").forceUnlock()).isFalse();
        ReentrantDistributedLock theirs = otherClient.getLock("stuck");
        assertThat(theirs.tryLock()).isTrue();
        assertThat(theirs.fencingToken()).isGreaterThan(token);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThat(theirs.getHoldCount()).isEqualTo(1);
        theirs.unlock();
    }

    @Test
    void conditionsAreRefusedWithAReason() {
        assertThatThrownBy(() -> client.getLock("x").newCondition())
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("Redis");
    }

    @Test
    void closedClientRefusesWork() {
        ReentrantDistributedLock lock = client.getLock("x");
        client.close();
        assertThatThrownBy(lock::lock).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> client.getLock("y")).isInstanceOf(IllegalStateException.class);
    }
}
