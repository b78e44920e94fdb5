package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * Re-entry that asks for another kind of lease: the longest lease asked for wins for the rest of the
 * hold, and a watchdog re-entry hands the hold to the watchdog. {@code heldLocks()} tells the truth.
 */
@Timeout(30)
@Tag("jdk-independent")
class LeaseKindReentryTest {

    static final Duration WATCHDOG = Duration.ofMillis(600);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(WATCHDOG).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
    }

    @Test
    void aWatchdogReentryHandsAFixedLeaseHoldToTheWatchdog() throws Exception {
        ReentrantDistributedLock lock = client.getLock("fixed-then-watchdog");
        lock.lock(500, TimeUnit.MILLISECONDS);
        lock.lock();
        Thread.sleep(1_500); // three times the fixed lease
        assertThat(redis.commands().pttl(lock.getKey())).as("still leased").isPositive();
        assertThat(lock.isLost()).isFalse();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(client.heldLocks().get(0).watchdog()).isTrue();
        lock.unlock();
        Thread.sleep(1_000); // the inner release does not hand it back to the shorter lease
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aLongerFixedLeaseIsNotCutBackByTheWatchdog() throws Exception {
        ReentrantDistributedLock lock = client.getLock("watchdog-then-long-lease");
        lock.lock();
        Instant asked = Instant.now();
        lock.lock(600, TimeUnit.SECONDS);
        Thread.sleep(WATCHDOG.toMillis()); // at least one renewal round
        assertThat(redis.commands().pttl(lock.getKey())).as("the 600 s lease survives renewal")
                .isGreaterThan(Duration.ofSeconds(590).toMillis());
        HeldLock held = client.heldLocks().get(0);
        assertThat(held.leaseExpiresAt()).as("heldLocks reports the longest lease")
                .isAfter(asked.plusSeconds(590));
        lock.unlock();
        lock.unlock();
    }

    @Test
    void aLongerFixedReentryLengthensAShorterOne() throws Exception {
        ReentrantDistributedLock lock = client.getLock("short-then-long");
        lock.lock(300, TimeUnit.MILLISECONDS);
        lock.lock(5, TimeUnit.SECONDS);
        Thread.sleep(600);
        assertThat(lock.isLost()).isFalse();
        assertThat(client.heldLocks().get(0).leaseExpiresAt()).isAfter(Instant.now().plusSeconds(3));
        lock.unlock();
        lock.unlock();
    }
}
