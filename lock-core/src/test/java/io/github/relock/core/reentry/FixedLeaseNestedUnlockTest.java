package io.github.relock.core.reentry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockLostException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/** An unlock() under a fixed lease the client knows has run out (isLost() is true) reports the loss, nested levels included. */
@Timeout(30)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class FixedLeaseNestedUnlockTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).watchdogTimeout(Duration.ofMillis(300)).build();
        other = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    /**
     * lock(300ms); nested lock(100ms) (local); the lease runs out; another client takes the lock. isLost() says
     * true, and the nested unlock() throws LockLostException, as the README's row "unlock() after the lease ran
     * out -> LockLostException" says.
     */
    @Test
    void nestedUnlockAfterAKnownFixedLeaseEndReportsTheLoss() throws Exception {
        RedisLockClient slow = RedisLockClient.builder(redis.connectionFactory()).build(); // 30 s: nothing forgotten
        ReentrantDistributedLock lock = slow.getLock("bk:fixed-ended");
        lock.lock(300, TimeUnit.MILLISECONDS);
        lock.lock(100, TimeUnit.MILLISECONDS); // covered by the 300 ms: counted locally
        Thread.sleep(450);
        assertThat(lock.isLost()).as("the client knows the lease ended").isTrue();
        ReentrantDistributedLock theirs = other.getLock("bk:fixed-ended");
        assertThat(theirs.tryLock()).as("someone else has it now").isTrue();
        try {
            assertThatThrownBy(lock::unlock).as("nested unlock after the lease ran out")
                    .isInstanceOf(LockLostException.class);
        }
        finally {
            theirs.unlock();
            slow.close();
        }
    }

    /**
     * As above, but the outer level runs on past one watchdog timeout after the lease ended, long enough for
     * the client to forget the hold: one of the unlocks still reports LockLostException, never only a bare
     * IllegalMonitorStateException ("not held"), since another client held the lock while the outer level ran.
     */
    @Test
    void theLossOfAFixedLeaseUnderANestedLevelIsReportedByOneOfTheUnlocks() throws Exception {
        ReentrantDistributedLock lock = client.getLock("bk:fixed-forgotten");
        lock.lock(200, TimeUnit.MILLISECONDS);
        lock.lock(50, TimeUnit.MILLISECONDS);
        Thread.sleep(300);
        ReentrantDistributedLock theirs = other.getLock("bk:fixed-forgotten");
        assertThat(theirs.tryLock()).isTrue();
        Throwable inner = null;
        try {
            lock.unlock();
        }
        catch (Throwable ex) {
            inner = ex;
        }
        Thread.sleep(800); // > watchdog timeout (300 ms) past the lease end, plus a round
        Throwable outer = null;
        try {
            lock.unlock();
        }
        catch (Throwable ex) {
            outer = ex;
        }
        theirs.unlock();
        boolean reported = inner instanceof LockLostException || outer instanceof LockLostException;
        assertThat(reported).as("inner=%s, outer=%s", inner, outer).isTrue();
    }
}
