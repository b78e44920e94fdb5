package io.github.relock.core.outages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOperationException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * An acquisition that timed out behind a partition (the caller got a LockOperationException) still reaches
 * Redis when the partition heals, and takes the lock for an owner that does not know it holds it: another
 * client still gets the lock within moments, not after that unwanted lease.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class TimedOutAcquireTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void anAcquisitionThatRanAfterItTimedOutDoesNotKeepTheLockFromOthers() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient partitioned = RedisLockClient.builder(factories.standalone(proxy.port(),
                        Duration.ofSeconds(1))).watchdogTimeout(LEASE).build();
                RedisLockClient other = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock lock = partitioned.getLock("timed-out-acquire");
            proxy.freeze(true);
            try {
                assertThatThrownBy(() -> lock.tryLock(500, TimeUnit.MILLISECONDS))
                        .isInstanceOf(LockOperationException.class);
            }
            finally {
                proxy.freeze(false); // the buffered acquisition now runs
            }
            Thread.sleep(200);
            String again = "the partitioned client does nothing more";
            long start = System.nanoTime();
            ReentrantDistributedLock taken = other.getLock("timed-out-acquire");
            boolean acquired = taken.tryLock(15, TimeUnit.SECONDS);
            long waited = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("%s; another client waited %d ms (acquired %s) after the partition healed%n", again,
                    waited, acquired);
            if (acquired) {
                taken.unlock();
            }
            assertThat(waited).as("the lock nobody knows it holds is not kept for its %d s lease", LEASE.toSeconds())
                    .isLessThan(2_000);
        }
    }
}
