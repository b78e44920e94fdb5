package io.github.relock.core.localview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A fixed lease that ran out by the local clock is not held anywhere the client answers locally: no fencing
 * token is handed out for it, and {@code heldLocks()} leaves it out, as {@code isHeldByCurrentThread()} does.
 */
@Timeout(60)
@Tag("redis-version-independent")
class EndedLeaseViewTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.newConnectionFactory()).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void aFixedLeaseThatRanOutHasNoFencingToken() throws Exception {
        ReentrantDistributedLock lock = client.getLock("ended-token");
        lock.lock(200, TimeUnit.MILLISECONDS);
        ReentrantDistributedLock theirs = other.getLock("ended-token");
        assertThat(theirs.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(lock::fencingToken).as("the token of a lease another client's hold followed")
                .isInstanceOf(IllegalMonitorStateException.class);
        theirs.unlock();
    }

    @Test
    void heldLocksLeavesOutAFixedLeaseThatRanOut() throws Exception {
        ReentrantDistributedLock lock = client.getLock("ended-listed");
        lock.lock(200, TimeUnit.MILLISECONDS);
        ReentrantDistributedLock theirs = other.getLock("ended-listed");
        assertThat(theirs.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(client.heldLocks()).as("listed as held while another client holds it").isEmpty();
        theirs.unlock();
    }
}
