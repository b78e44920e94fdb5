package io.github.relock.core.release;

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
 * The JDK idiom {@code finally { if (multi.isHeldByCurrentThread()) multi.unlock(); }} leaves no lock of a
 * multi-lock behind, also when one of its locks was lost while held.
 */
@Timeout(60)
class MultiLockIdiomTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(Duration.ofMillis(1500)).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void theJdkIdiomOnAMultiLockWithALostMemberLeavesNoLockBehind() throws Exception {
        MultiLock multi = client.getMultiLock("idiom-a", "idiom-b");
        multi.lock();
        try {
            other.getLock("idiom-b").forceUnlock(); // one lock gone: the all-or-none hold is over
            long gone = System.nanoTime();
            while (!multi.isLost() && System.nanoTime() - gone < TimeUnit.SECONDS.toNanos(5)) {
                Thread.sleep(5);
            }
        }
        finally {
            try {
                if (multi.isHeldByCurrentThread()) {
                    multi.unlock();
                }
            }
            catch (RuntimeException reported) {
                // the lost lock may be reported; what matters is what is left in Redis
            }
        }
        ReentrantDistributedLock theirs = other.getLock("idiom-a");
        assertThat(theirs.tryLock(3, TimeUnit.SECONDS)).as("the lock not lost is released").isTrue();
        theirs.unlock();
    }
}
