package io.github.relock.core.allornone;

import static org.assertj.core.api.Assertions.assertThat;

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
 * A multi-lock one of whose names is held as a fair lock (by its own caller or by another client) is refused
 * and leaves none of its other locks taken.
 */
@Timeout(60)
class MultiLockKindTest {

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
    void aNameHeldAsAFairLockLeavesNoOtherLockTaken() throws Exception {
        ReentrantDistributedLock own = client.getFairLock("kind-b");
        own.lock();
        System.out.printf("own fair lock: %s%n", attempt(client.getMultiLock("kind-a", "kind-b", "kind-c")));
        assertThat(left()).as("after a refusal for the caller's own fair lock").isZero();
        own.unlock();

        ReentrantDistributedLock theirs = other.getFairLock("kind-b");
        theirs.lock();
        System.out.printf("another client's fair lock: %s%n",
                attempt(client.getMultiLock("kind-a", "kind-b", "kind-c")));
        assertThat(left()).as("after a refusal for another client's fair lock").isZero();
        theirs.unlock();
        assertThat(client.heldLocks()).isEmpty();
    }

    private static String attempt(MultiLock multi) {
        try {
            boolean got = multi.tryLock(500, TimeUnit.MILLISECONDS);
            if (got) {
                multi.unlock();
            }
            return "returned " + got;
        }
        catch (Exception ex) {
            return ex.toString();
        }
    }

    private long left() {
        return redis.commands().exists(client.redisKeys("kind-a").lock(), client.redisKeys("kind-c").lock());
    }
}
