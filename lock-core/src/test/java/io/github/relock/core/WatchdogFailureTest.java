package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * Nothing may end renewal: not a listener that throws an {@link Error}, not a connection factory that
 * throws something other than a {@code DataAccessException}. And a hold whose lease passed without a
 * successful renewal is reported lost, even when Redis could not be asked.
 */
@Timeout(60)
@Tag("redis-version-independent")
class WatchdogFailureTest {

    static final Duration TIMEOUT = Duration.ofMillis(600);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();

    @Test
    void aListenerThatThrowsAnErrorDoesNotStopRenewal() throws Exception {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(TIMEOUT)
                .lockLostListener(event -> {
                    lost.add(event);
                    throw new AssertionError("a listener bug");
                })
                .lockLostListener(lost::add) // the second listener still hears of it
                .build()) {
            ReentrantDistributedLock doomed = client.getLock("doomed");
            ReentrantDistributedLock kept = client.getLock("kept");
            doomed.lock();
            kept.lock();
            redis.commands().del(doomed.getKey());
            await().atMost(TIMEOUT).until(() -> lost.size() == 2);

            assertKeptAliveFor(kept, TIMEOUT.multipliedBy(4));
            kept.unlock();
        }
    }

    @Test
    void aConnectionFactoryThatThrowsAPoolExceptionDoesNotStopRenewal() throws Exception {
        FaultyConnectionFactory factory = new FaultyConnectionFactory(redis.connectionFactory());
        try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(TIMEOUT)
                .lockLostListener(lost::add).build()) {
            ReentrantDistributedLock kept = client.getLock("kept-through-pool-failure");
            kept.lock();
            factory.failFor(Duration.ofMillis(250)); // shorter than the two renewal rounds a lease has left

            assertKeptAliveFor(kept, TIMEOUT.multipliedBy(4));
            assertThat(lost).isEmpty();
            kept.unlock();
        }
    }

    @Test
    void aPoolThatCannotHandOutAConnectionIsALockOperationException() {
        FaultyConnectionFactory factory = new FaultyConnectionFactory(redis.connectionFactory());
        try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(TIMEOUT).build()) {
            ReentrantDistributedLock lock = client.getLock("pool");
            lock.lock();
            factory.failFor(Duration.ofSeconds(1));
            assertThatThrownBy(() -> client.getLock("pool-2").tryLock()).isInstanceOf(LockOperationException.class)
                    .hasMessageContaining("pool");
            assertThatThrownBy(lock::unlock).isInstanceOf(LockOperationException.class)
                    .hasMessageContaining("freed when its lease ends");
        }
    }

    /** A nested release that failed still ends its level: the outer release frees the lock, whatever count is left. */
    @Test
    void aFailedInnerReleaseStillLetsTheOuterReleaseFreeTheLock() {
        FaultyConnectionFactory factory = new FaultyConnectionFactory(redis.connectionFactory());
        try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(TIMEOUT).build()) {
            ReentrantDistributedLock lock = client.getLock("failed-inner-release");
            lock.lock();
            // a longer lease than the hold has: a re-entry Redis counts, so its release goes to Redis too
            lock.lock(TIMEOUT.toMillis() * 10, TimeUnit.MILLISECONDS);
            factory.failFor(Duration.ofMillis(400));
            assertThatThrownBy(lock::unlock).isInstanceOf(LockOperationException.class);
            await().atMost(Duration.ofSeconds(2)).pollInSameThread().until(() -> {
                try {
                    lock.unlock();
                    return true;
                }
                catch (LockOperationException stillFailing) {
                    return false;
                }
            });
            assertThat(redis.commands().exists(lock.getKey())).as("freed by the outer release").isZero();
            assertThat(client.heldLocks()).isEmpty();
        }
    }

    @Test
    void aLossFoundByTheReleaseIsToldToTheListenersToo() {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory())
                .watchdogTimeout(Duration.ofSeconds(30)).lockLostListener(lost::add).build()) {
            ReentrantDistributedLock lock = client.getLock("asked");
            lock.lock();
            redis.commands().del(lock.getKey());
            assertThat(lock.isHeldByCurrentThread()).as("not known before the watchdog's next round").isTrue();
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
            // told on the listener thread, not on the owner's, whose unlock() a blocking listener must not hold up
            await().atMost(5, TimeUnit.SECONDS).untilAsserted(() ->
                    assertThat(lost).singleElement().extracting(LockLostEvent::lockName).isEqualTo("asked"));
            assertThat(client.heldLocks()).isEmpty();
        }
    }

    /**
     * A renewal that Redis does not answer (a partition: nothing comes back, nothing is refused) waits for the
     * command timeout; the holder must hear of the loss when its lease ends, not when that wait gives up.
     */
    @Test
    void aLeaseThatEndsWhileARenewalWaitsForRedisIsReportedWhenItEnds() throws Exception {
        Duration lease = Duration.ofMillis(1_500);
        Duration commandTimeout = Duration.ofSeconds(15);
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient client = RedisLockClient.builder(factories.standalone(proxy.port(), commandTimeout))
                        .watchdogTimeout(lease).lockLostListener(lost::add).build()) {
            ReentrantDistributedLock lock = client.getLock("partitioned");
            lock.lock();
            long frozenAt = System.nanoTime();
            proxy.freeze(true);
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
                long afterMillis = (System.nanoTime() - frozenAt) / 1_000_000;
                System.out.printf("lease of %d ms ended during an unanswered renewal: reported lost after %d ms%n",
                        lease.toMillis(), afterMillis);
                assertThat(afterMillis).as("told by the end of the lease, not after the %d s command timeout",
                        commandTimeout.toSeconds()).isLessThan(lease.toMillis() + 2_000);
                assertThat(lock.isLost()).isTrue();
            }
            finally {
                proxy.freeze(false);
            }
        }
    }

    @Test
    void aLeaseThatPassedWithoutARenewalIsReportedLost() {
        FaultyConnectionFactory factory = new FaultyConnectionFactory(redis.connectionFactory());
        try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(TIMEOUT)
                .lockLostListener(lost::add).build()) {
            ReentrantDistributedLock lock = client.getLock("unrenewable");
            lock.lock();
            long failedAt = System.nanoTime();
            factory.failFor(TIMEOUT.multipliedBy(3)); // Redis cannot be asked at all while the lease runs out

            await().atMost(TIMEOUT.multipliedBy(2)).until(() -> !lost.isEmpty());
            long afterMillis = (System.nanoTime() - failedAt) / 1_000_000;
            System.out.printf("unrenewable lease reported lost %d ms after renewals started failing (lease %d ms)%n",
                    afterMillis, TIMEOUT.toMillis());
            assertThat(afterMillis).as("not before the lease could have ended").isGreaterThanOrEqualTo(
                    TIMEOUT.toMillis() / 3);
            assertThat(lock.isLost()).isTrue();
            assertThat(lost.get(0).lockName()).isEqualTo("unrenewable");
        }
    }

    private static void assertKeptAliveFor(ReentrantDistributedLock lock, Duration duration) throws InterruptedException {
        long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(redis.commands().pttl(lock.getKey())).as("lease of %s", lock.getName()).isPositive();
            Thread.sleep(50);
        }
        assertThat(lock.isLost()).isFalse();
    }
}
