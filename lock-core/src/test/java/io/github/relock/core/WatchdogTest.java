package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

@Timeout(60)
@Tag("redis-version-independent")
class WatchdogTest {

    static final Duration TIMEOUT = Duration.ofMillis(600);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
    RedisLockClient client;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(TIMEOUT)
                .lockLostListener(lost::add).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
    }

    @Test
    void keepsAHeldLockAliveForManyTimeouts() throws Exception {
        ReentrantDistributedLock lock = client.getLock("long-job");
        lock.lock();
        long deadline = System.nanoTime() + TIMEOUT.multipliedBy(5).toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(redis.commands().pttl(lock.getKey())).isPositive();
            Thread.sleep(50);
        }
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lost).isEmpty();
        lock.unlock();
    }

    /** PEXPIRE ... GT counts a key without a lease as longer than any: renewal must still give it one. */
    @Test
    void givesALeaseBackToAHeldLockThatLostIt() {
        ReentrantDistributedLock lock = client.getLock("persisted");
        lock.lock();
        String key = client.redisKeys("persisted").lock();
        assertThat(redis.commands().persist(key)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.commands().pttl(key) > 0);
        lock.unlock();
    }

    @Test
    void stopsRenewingOnUnlock() throws Exception {
        ReentrantDistributedLock lock = client.getLock("released");
        lock.lock();
        String owner = redis.commands().hkeys(lock.getKey()).get(0);
        lock.unlock();
        // put the same owner's hold back behind the client's back: a watchdog still renewing it would keep it
        redis.commands().hset(lock.getKey(), owner, "1");
        redis.commands().pexpire(lock.getKey(), TIMEOUT.toMillis());
        Thread.sleep(TIMEOUT.toMillis() + 300);
        assertThat(redis.commands().exists(lock.getKey())).as("expired, not renewed").isZero();
    }

    @Test
    void stopsRenewingOnClose() throws Exception {
        ReentrantDistributedLock lock = client.getLock("closed");
        lock.lock();
        client.close();
        long first = redis.commands().pttl(lock.getKey());
        Thread.sleep(TIMEOUT.toMillis() / 2);
        assertThat(redis.commands().pttl(lock.getKey())).isLessThan(first);
        await().atMost(TIMEOUT.multipliedBy(2)).until(() -> redis.commands().exists(lock.getKey()) == 0);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("relock-watchdog-" + client.getClientId()));
    }

    @Test
    void reportsALockDeletedBehindItsBack() {
        ReentrantDistributedLock lock = client.getLock("deleted");
        lock.lock();
        long token = lock.fencingToken();
        long deletedAt = System.nanoTime();
        redis.commands().del(lock.getKey());

        await().atMost(TIMEOUT).until(() -> !lost.isEmpty());
        long detectedAfterMillis = (System.nanoTime() - deletedAt) / 1_000_000;
        System.out.printf("lost lock detected %d ms after deletion (renewal interval %d ms)%n", detectedAfterMillis,
                TIMEOUT.toMillis() / 3);
        LockLostEvent event = lost.get(0);
        assertThat(event.lockName()).isEqualTo("deleted");
        assertThat(event.key()).isEqualTo(lock.getKey());
        assertThat(event.fencingToken()).isEqualTo(token);
        assertThat(lock.isLost()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(client.heldLocks()).isEmpty();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThat(lock.tryLock()).as("a fresh acquisition after the loss works").isTrue();
        lock.unlock();
    }

    @Test
    void reentryOnALostLockIsRefused() {
        ReentrantDistributedLock lock = client.getLock("lost-reentry");
        lock.lock();
        redis.commands().del(lock.getKey());
        // a nested lock() is counted in the client until it knows of the loss: the watchdog's next round
        await().atMost(Duration.ofSeconds(5)).pollInSameThread().until(lock::isLost);
        assertThatThrownBy(lock::lock).isInstanceOf(LockLostException.class).hasMessageContaining("re-entry refused");
    }

    @Test
    void renewsManyLocksInBatches() throws Exception {
        List<ReentrantDistributedLock> locks = new java.util.ArrayList<>();
        for (int i = 0; i < 600; i++) {
            ReentrantDistributedLock lock = client.getLock("many-" + i);
            lock.lock();
            locks.add(lock);
        }
        long before = evalshaCalls();
        Thread.sleep(TIMEOUT.toMillis() * 2);
        long renewals = evalshaCalls() - before;
        // 6 rounds at most in 2 timeouts, 3 calls each (600 locks / 256 per call)
        assertThat(renewals).isBetween(3L, 21L);
        for (ReentrantDistributedLock lock : locks) {
            assertThat(redis.commands().pttl(lock.getKey())).isPositive();
            lock.unlock();
        }
        assertThat(client.heldLocks()).isEmpty();
    }

    private long evalshaCalls() {
        return CommandStats.calls(redis.commands(), "evalsha");
    }
}
