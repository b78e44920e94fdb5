package io.github.relock.core.renewal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockLostEvent;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * A renewal round whose reply comes late, but before the lease it renews ends: Redis renewed the hold for a whole
 * lease from when the round was sent, so the next round must come before that lease ends, not a whole renewal
 * interval after the late reply.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ALateRoundIsFollowedInTimeTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final long INTERVAL_MILLIS = LEASE.toMillis() / 3;
    /** The hold is taken this long before a round. */
    private static final long BEFORE_ROUND_MILLIS = 150;
    /** The round's reply lands this long before the lease end the client knew. */
    private static final long BEFORE_LEASE_END_MILLIS = 300;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aHoldWhoseRenewalReplyComesBeforeItsLeaseEndIsKept() throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient client = RedisLockClient.builder(factories.standalone(proxy.port(), Duration.ofSeconds(20)))
                        .watchdogTimeout(LEASE).lockLostListener(lost::add).build()) {
            // a probe hold shows when a round ends: the next one comes a renewal interval later
            ReentrantDistributedLock probe = client.getLock("probe");
            probe.lock();
            Instant first = leaseEnd(client, "probe");
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                    .until(() -> leaseEnd(client, "probe").isAfter(first.plusMillis(100)));
            long roundEnded = System.nanoTime();
            probe.unlock();
            sleepUntil(roundEnded + TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS - BEFORE_ROUND_MILLIS));
            ReentrantDistributedLock held = client.getLock("taken-before-a-round");
            held.lock(); // the round that comes next renews it in Redis for a lease from then
            long taken = System.nanoTime();
            proxy.freezeReplies(true);
            sleepUntil(taken + TimeUnit.MILLISECONDS.toNanos(LEASE.toMillis() - BEFORE_LEASE_END_MILLIS));
            proxy.freezeReplies(false); // the round's reply lands before the lease end the client knew
            long thawed = System.nanoTime();
            Thread.sleep(LEASE.toMillis() + 500);
            System.out.printf("hold taken %d ms before a round; its reply held back %d ms; lost: %s%n",
                    BEFORE_ROUND_MILLIS, (thawed - taken) / 1_000_000, lost.stream().map(LockLostEvent::lockName).toList());
            assertThat(lost).as("the hold was renewed in Redis before its lease ended, and renewed on").isEmpty();
            assertThat(held.isLost()).isFalse();
            held.unlock();
        }
    }

    private static Instant leaseEnd(RedisLockClient client, String name) {
        return client.heldLocks().stream().filter(hold -> hold.name().equals(name)).map(HeldLock::leaseExpiresAt)
                .findFirst().orElseThrow();
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(Math.max(0, nanoTime - System.nanoTime()));
    }
}
