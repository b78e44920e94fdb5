package io.github.relock.core.renewal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockLostException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * A renewal that Redis ran but whose reply came only after the hold's lease end: the holder was rightly told
 * the lock was lost (it could not know), and its unlock() says so and sends nothing. Redis renewed the hold,
 * so the client gives back what the late reply says it still holds, rather than keep everyone out of the lock
 * for another whole lease.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class LateRenewalReplyTest {

    private static final Duration LEASE = Duration.ofSeconds(6);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aHoldRenewedAfterItWasReportedLostIsGivenBack() throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(factories.standalone(proxy.port(), Duration.ofSeconds(20)))
                        .watchdogTimeout(LEASE).lockLostListener(lost::add).build();
                RedisLockClient other = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock held = holder.getLock("late-renewal");
            held.lock();
            proxy.freezeReplies(true); // the renewal at 2 s runs in Redis (lease to 8 s); its reply waits
            try {
                await().atMost(Duration.ofSeconds(15)).until(() -> !lost.isEmpty());
            }
            finally {
                proxy.freezeReplies(false);
            }
            assertThatThrownBy(held::unlock).isInstanceOf(LockLostException.class);
            Thread.sleep(200); // the late reply lands
            long start = System.nanoTime();
            ReentrantDistributedLock taken = other.getLock("late-renewal");
            assertThat(taken.tryLock(10, TimeUnit.SECONDS)).isTrue();
            long waitedMillis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("hold reported lost at its lease end, renewed late in Redis: another client waited "
                    + "%d ms for the lock its owner was told it lost and unlocked%n", waitedMillis);
            taken.unlock();
            assertThat(waitedMillis).as("the lock is given back, not kept to the end of the late renewal's lease")
                    .isLessThan(500);
        }
    }
}
