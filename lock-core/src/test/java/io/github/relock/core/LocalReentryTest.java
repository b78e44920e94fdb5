package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * Re-entry by the owner of a live hold is counted in the client: only the first acquisition and the last
 * release talk to Redis, unless a re-entry asks for a longer lease than the hold has left.
 */
@Timeout(30)
@Tag("redis-version-independent")
class LocalReentryTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
    }

    private long scripts() {
        return CommandStats.calls(redis.commands(), "evalsha") + CommandStats.calls(redis.commands(), "eval");
    }

    @Test
    void nestedLocksAndUnlocksCostNoRoundTrip() {
        ReentrantDistributedLock lock = client.getLock("local:nested");
        long before = scripts();
        lock.lock();
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        lock.unlock();
        assertThat(scripts() - before).as("one acquire script, no re-entry script").isEqualTo(1);
        assertThat(redis.commands().exists(lock.getKey())).isOne();
        lock.unlock();
        assertThat(scripts() - before).as("and one release script").isEqualTo(2);
        assertThat(redis.commands().exists(lock.getKey())).isZero();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void holdCountIsTheNestingDepthWhileRedisCountsOneHold() {
        ReentrantDistributedLock lock = client.getLock("local:depth");
        lock.lock();
        lock.lock();
        lock.lock();
        String owner = client.heldLocks().get(0).ownerId();
        assertThat(redis.commands().hget(lock.getKey(), owner)).isEqualTo("1");
        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(client.heldLocks().get(0).holdCount()).isEqualTo(3);
        long token = lock.fencingToken();
        lock.unlock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.fencingToken()).isEqualTo(token);
        lock.unlock();
        lock.unlock();
        assertThat(lock.getHoldCount()).isZero();
    }

    @Test
    void aReentryThatNeedsALongerLeaseMakesOneRoundTripAndTheLastReleaseStillFrees() throws Exception {
        ReentrantDistributedLock lock = client.getLock("local:longer");
        lock.lock(2, TimeUnit.SECONDS);
        long before = scripts();
        assertThat(lock.tryLock(0, 1, TimeUnit.SECONDS)).isTrue(); // shorter than what is left: local
        assertThat(scripts() - before).isZero();
        lock.lock(20, TimeUnit.SECONDS); // longer: one round trip, which lengthens the lease
        assertThat(scripts() - before).isEqualTo(1);
        assertThat(redis.commands().pttl(lock.getKey())).isGreaterThan(10_000);
        lock.lock(5, TimeUnit.SECONDS); // covered by the 20 s just granted: local
        assertThat(scripts() - before).isEqualTo(1);
        assertThat(lock.getHoldCount()).isEqualTo(4);

        for (int left = 3; left >= 1; left--) {
            lock.unlock();
            assertThat(redis.commands().exists(lock.getKey())).as("held at depth %d", left).isOne();
        }
        lock.unlock();
        assertThat(redis.commands().exists(lock.getKey())).isZero();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void aWatchdogReentryIntoAFixedLeaseHoldGoesToRedisAndHandsItToTheWatchdog() {
        ReentrantDistributedLock lock = client.getLock("local:handover");
        lock.lock(1, TimeUnit.SECONDS);
        long before = scripts();
        lock.lock();
        assertThat(scripts() - before).isEqualTo(1);
        assertThat(client.heldLocks().get(0).watchdog()).isTrue();
        assertThat(redis.commands().pttl(lock.getKey())).isGreaterThan(5_000);
        lock.unlock();
        lock.unlock();
        assertThat(redis.commands().exists(lock.getKey())).isZero();
    }

    @Test
    void aLossTheWatchdogSawRefusesTheNestedCall() throws Exception {
        CountDownLatch lost = new CountDownLatch(1);
        try (RedisLockClient fast = RedisLockClient.builder(redis.connectionFactory())
                .watchdogTimeout(Duration.ofMillis(600)).lockLostListener(event -> lost.countDown()).build()) {
            ReentrantDistributedLock lock = fast.getLock("local:lost");
            lock.lock();
            redis.commands().del(lock.getKey());
            assertThat(lost.await(5, TimeUnit.SECONDS)).as("the watchdog noticed").isTrue();
            assertThatThrownBy(lock::lock).isInstanceOf(LockLostException.class);
        }
    }

    @Test
    void aLossNobodySawYetIsReportedAtTheLastRelease() {
        ReentrantDistributedLock lock = client.getLock("local:unseen");
        lock.lock();
        redis.commands().del(lock.getKey()); // as a force-unlock by an operator would
        lock.lock(); // counted locally: the client has not heard of the loss yet
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void aFixedLeaseThatEndedIsNotReentered() throws Exception {
        ReentrantDistributedLock lock = client.getLock("local:ended");
        lock.lock(200, TimeUnit.MILLISECONDS);
        long token = lock.fencingToken();
        Thread.sleep(400);
        long before = scripts();
        lock.lock(5, TimeUnit.SECONDS);
        assertThat(scripts() - before).as("a new hold, from Redis").isEqualTo(1);
        assertThat(lock.fencingToken()).isGreaterThan(token);
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
    }

    @Test
    void asyncReentryCostsNoRoundTrip() throws Exception {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock("local:async");
        lock.lockAsync(owner).get(5, TimeUnit.SECONDS);
        long before = scripts();
        assertThat(lock.tryLockAsync(Duration.ZERO, null, owner).get(5, TimeUnit.SECONDS)).isTrue();
        lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertThat(scripts() - before).isZero();
        lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        assertThat(redis.commands().exists(lock.getKey())).isZero();
    }

    @Test
    void oneOwnerOnManyThreadsKeepsItsCountExact() throws Exception {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock("local:shared", owner);
        lock.lock();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        lock.lock();
                        lock.unlock();
                    }
                }));
            }
            for (Future<?> future : done) {
                future.get(20, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(redis.commands().exists(lock.getKey())).isZero();
    }
}
