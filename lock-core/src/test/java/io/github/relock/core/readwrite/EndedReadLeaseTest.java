package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A read hold whose own lease ended is gone, even while nothing else has touched the lock since: taking the read
 * lock again makes a new hold, with a new fencing token, and does not bring the old one back.
 */
@Timeout(30)
class EndedReadLeaseTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void takingAReadLockAgainAfterItsLeaseEndedMakesANewHold() throws Exception {
        try (RedisLockClient readers = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient writers = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock read = readers.getReadWriteLock("ended-read").readLock();
            assertThat(read.tryLock(Duration.ZERO, Duration.ofMillis(200))).isTrue();
            long token = read.fencingToken();
            Thread.sleep(400); // the lease ends; no script runs on the lock meanwhile

            assertThat(read.tryLock(Duration.ZERO, Duration.ofSeconds(10))).isTrue();

            assertThat(read.getHoldCount()).as("a hold of its own, not a level on the ended one").isOne();
            assertThat(read.fencingToken()).isGreaterThan(token);
            ReentrantDistributedLock write = writers.getReadWriteLock("ended-read").writeLock();
            assertThat(write.tryLock(Duration.ZERO, Duration.ofSeconds(10))).as("a writer, with the new read hold inside")
                    .isFalse();
            read.unlock();
            assertThat(write.tryLock(Duration.ZERO, Duration.ofSeconds(10))).isTrue();
        }
    }
}
