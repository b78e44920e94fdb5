package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/** {@link ReentrantDistributedLock#currentHold()}: the owner's hold as the client sees it, on a real redis-server. */
@Timeout(30)
class CurrentHoldTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build();

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void showsTheOwnersHoldWithItsTokenAndCount() {
        ReentrantDistributedLock lock = client.getLock("current:1");
        assertThat(lock.currentHold()).as("before").isEmpty();
        lock.lock();
        HeldLock first = lock.currentHold().orElseThrow();
        assertThat(first.name()).isEqualTo("current:1");
        assertThat(first.key()).isEqualTo(lock.getKey());
        assertThat(first.fencingToken()).isEqualTo(lock.fencingToken());
        assertThat(first.holdCount()).isOne();
        assertThat(first.watchdog()).isTrue();
        lock.lock();
        assertThat(lock.currentHold().orElseThrow().holdCount()).as("re-entered").isEqualTo(2);
        assertThat(lock.currentHold().orElseThrow().fencingToken()).isEqualTo(first.fencingToken());
        lock.unlock();
        lock.unlock();
        assertThat(lock.currentHold()).as("after").isEmpty();
    }

    @Test
    void anotherOwnerSeesNoHold() throws Exception {
        ReentrantDistributedLock mine = client.getLock("current:2");
        mine.lock();
        try {
            LockOwner other = client.newOwner();
            assertThat(client.getLock("current:2", other).currentHold()).isEmpty();
        }
        finally {
            mine.unlock();
        }
    }

    @Test
    void aHoldWhoseLeaseRanOutKeepsItsToken() throws Exception {
        ReentrantDistributedLock lock = client.getLock("current:3");
        assertThat(lock.tryLock(0, 100, TimeUnit.MILLISECONDS)).isTrue();
        long token = lock.fencingToken();
        Thread.sleep(200);
        assertThat(lock.isLost()).isTrue();
        assertThat(lock.currentHold().orElseThrow().fencingToken()).isEqualTo(token);
    }

    @Test
    void aMultiLockShowsItsFirstLocksHold() {
        MultiLock both = client.getMultiLock("current:b", "current:a");
        both.lock();
        try {
            assertThat(both.currentHold().orElseThrow().name()).isEqualTo("current:a");
            assertThat(both.locks().get(1).currentHold().orElseThrow().name()).isEqualTo("current:b");
        }
        finally {
            both.unlock();
        }
    }
}
