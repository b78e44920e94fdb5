package io.github.relock.core.outages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.relock.core.LockOperationException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.LockKinds;
import io.github.relock.test.RedisServer;

/**
 * An acquisition whose reply timed out while Redis was paused (SIGSTOP) still runs when Redis resumes, and takes
 * the lock for an owner that was told it failed: another client gets the lock within moments, not after that
 * unwanted lease. The scripts are loaded first, as on any server that has served a lock before: on a fresh one the
 * late EVALSHA meets NOSCRIPT, whose EVAL fallback is never sent once the caller gave up, and nothing is taken.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class TimedOutAcquisitionKeepsNobodyOutTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    @ParameterizedTest
    @ValueSource(strings = { "plain", "fair", "write", "read" })
    void anotherClientTakesTheLockSoonAfterRedisResumes(String kind) throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient timedOut = RedisLockClient.builder(server.newConnectionFactory(Duration.ofMillis(500)))
                        .watchdogTimeout(LEASE).build();
                RedisLockClient other = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(2)))
                        .build()) {
            String name = "timed-out:" + kind;
            Function<RedisLockClient, ReentrantDistributedLock> lockOf = c -> LockKinds.of(c, kind, name);
            ReentrantDistributedLock lock = lockOf.apply(timedOut);
            lock.lock(); // loads the scripts
            lock.unlock();
            server.pause();
            try {
                assertThatThrownBy(() -> lock.tryLock(300, TimeUnit.MILLISECONDS))
                        .isInstanceOf(LockOperationException.class);
                Thread.sleep(200);
            }
            finally {
                server.resume(); // the acquisition sent before the timeout now runs
            }
            Thread.sleep(300);
            ReentrantDistributedLock taken = kind.equals("read") ? other.getReadWriteLock(name).writeLock()
                    : lockOf.apply(other);
            long start = System.nanoTime();
            boolean acquired = taken.tryLock(15, TimeUnit.SECONDS);
            long waited = (System.nanoTime() - start) / 1_000_000;
            if (acquired) {
                taken.unlock();
            }
            assertThat(timedOut.heldLocks()).isEmpty();
            assertThat(waited).as("the lock nobody knows it holds is not kept for its %d s lease (%s)",
                    LEASE.toSeconds(), kind).isLessThan(2_000);
        }
    }
}
