package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/** {@code tryLock} with {@link Duration}s, and {@code lockAsync} with a lease, against a real redis-server. */
@Timeout(60)
class DurationFormsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(Duration.ofSeconds(30)).build();
        other = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(Duration.ofSeconds(30)).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void tryLockWithAWaitGivesUpOrHoldsWithTheWatchdog() throws Exception {
        ReentrantDistributedLock lock = client.getLock("durations:1");
        assertThat(other.getLock("durations:1").tryLock()).isTrue();
        long start = System.nanoTime();
        assertThat(lock.tryLock(Duration.ofMillis(200))).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(190);
        other.getLock("durations:1").unlock();
        assertThat(lock.tryLock(Duration.ofSeconds(1))).isTrue();
        assertThat(lock.remainingLease()).isGreaterThan(Duration.ofSeconds(20)); // the watchdog's 30 s
        lock.unlock();
    }

    @Test
    void tryLockWithAWaitAndALeaseHoldsForTheLease() throws Exception {
        ReentrantDistributedLock lock = client.getLock("durations:2");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(3))).isTrue();
        assertThat(lock.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(3));
        lock.unlock();
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ofDays(400)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void lockAsyncWithALeaseHoldsForTheLease() throws Exception {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock("durations:3");
        lock.lockAsync(Duration.ofSeconds(3), owner).get(5, TimeUnit.SECONDS);
        assertThat(client.getLock("durations:3", owner).isHeldByCurrentThread()).isTrue();
        assertThat(lock.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(3));
        lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertThat(lock.isLocked()).isFalse();
    }
}
