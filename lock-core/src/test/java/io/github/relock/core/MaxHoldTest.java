package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/** A watchdog hold lasts until released; a maximum hold time bounds it for work that never ends. */
@Timeout(30)
@Tag("redis-version-independent")
class MaxHoldTest {

    static final Duration WATCHDOG = Duration.ofMillis(600);
    static final Duration MAX_HOLD = Duration.ofMillis(500);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(WATCHDOG)
                .lockLostListener(lost::add).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void aHoldKeptPastItsMaximumIsReleasedAndReportedLost() {
        ReentrantDistributedLock lock = client.getLock("hung-job").withMaxHold(MAX_HOLD);
        lock.lock();
        lock.lock(); // the whole hold ends, re-entries included
        long taken = System.nanoTime();
        await().atMost(Duration.ofSeconds(3)).until(() -> redis.commands().exists(lock.getKey()) == 0);
        long releasedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - taken);
        System.out.printf("max-hold %d ms: released after %d ms (renewal interval %d ms)%n", MAX_HOLD.toMillis(),
                releasedAfter, WATCHDOG.toMillis() / 3);
        assertThat(releasedAfter).isBetween(MAX_HOLD.toMillis() - 50, MAX_HOLD.toMillis() + WATCHDOG.toMillis());
        await().atMost(Duration.ofSeconds(1)).until(() -> !lost.isEmpty());
        assertThat(lost.get(0).lockName()).isEqualTo("hung-job");
        assertThat(lock.isLost()).isTrue();
        assertThat(other.getLock("hung-job").tryLock()).as("free for others").isTrue();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    void aLongFixedLeaseIsCutAtTheMaximumToo() {
        ReentrantDistributedLock lock = client.getLock("long-lease").withMaxHold(MAX_HOLD);
        lock.lock(1, TimeUnit.HOURS);
        await().atMost(Duration.ofSeconds(3)).until(() -> redis.commands().exists(lock.getKey()) == 0);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    void aHoldReleasedInTimeIsUntouched() throws Exception {
        ReentrantDistributedLock lock = client.getLock("quick-job").withMaxHold(MAX_HOLD);
        lock.lock();
        lock.unlock();
        lock.lock(); // a new hold: a new limit
        Thread.sleep(MAX_HOLD.toMillis() / 2);
        lock.unlock();
        Thread.sleep(MAX_HOLD.toMillis());
        assertThat(lost).isEmpty();
    }

    @Test
    void theMaximumMustBePositive() {
        ReentrantDistributedLock lock = client.getLock("bad");
        assertThatThrownBy(() -> lock.withMaxHold(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxHold");
        assertThatThrownBy(() -> lock.withMaxHold(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
