package io.github.relock.core.allornone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.MultiLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A multi-lock taken with a lease shorter than its wait returns with every lease fresh, however long it waited
 * for a busy lock; one re-entered over a lock Redis lost reads as not held within a watchdog round.
 */
@Timeout(60)
class MultiLockLeaseTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.newConnectionFactory()).watchdogTimeout(Duration.ofMillis(1500)).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void everyLeaseIsFreshWhenAMultiLockReturnsAfterAWait() throws Exception {
        ReentrantDistributedLock blocker = other.getLock("fresh-b");
        blocker.lock(800, TimeUnit.MILLISECONDS);
        MultiLock multi = client.getMultiLock("fresh-a", "fresh-b", "fresh-c");
        long started = System.nanoTime();
        assertThat(multi.tryLock(3000, 300, TimeUnit.MILLISECONDS)).isTrue();
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        long shortest = Long.MAX_VALUE;
        for (ReentrantDistributedLock lock : multi.locks()) {
            shortest = Math.min(shortest, lock.remainingLease().toMillis());
        }
        System.out.printf("multi-lock with a 300 ms lease waited %d ms; shortest lease left %d ms%n", waited,
                shortest);
        assertThat(shortest).isGreaterThan(200);
        multi.unlock();
    }

    @Test
    void aMultiLockReEnteredOverALostLockReadsNotHeldWithinAWatchdogRound() throws Exception {
        ReentrantDistributedLock first = client.getLock("reentered-a");
        first.lock();
        redis.commands().flushall();
        long flushed = System.nanoTime();
        ReentrantDistributedLock theirs = other.getLock("reentered-a");
        assertThat(theirs.tryLock()).isTrue();
        MultiLock multi = client.getMultiLock("reentered-a", "reentered-b");
        boolean got;
        try {
            got = multi.tryLock();
        }
        catch (IllegalMonitorStateException ex) {
            got = false;
        }
        while (multi.isHeldByCurrentThread() && System.nanoTime() - flushed < TimeUnit.SECONDS.toNanos(10)) {
            Thread.sleep(2);
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - flushed);
        System.out.printf("multi-lock over a lost lock: tryLock() %s; read as held for %d ms (bound 500 ms)%n", got,
                ms);
        assertThat(ms).isLessThan(750);
        theirs.unlock();
    }
}
