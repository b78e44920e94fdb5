package io.github.relock.core.owners;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Two threads of one explicit owner both wait for a lock held by a third thread of the same client. The release
 * hands the lock to one of them (local hand-off); that one releases at once while the other still sleeps as a
 * hand-off candidate: the second hand-off, from owner O to owner O, keeps the lock in Redis.
 */
@Timeout(60)
@Tag("jdk-independent")
class SameOwnerHandOffTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).build();
        other = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void aHandOffFromAnOwnerToItselfKeepsTheLockInRedis() throws Exception {
        String name = "bk:self-handoff";
        ReentrantDistributedLock held = client.getLock(name);
        held.lock();
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock mine = client.getLock(name, owner);
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch firstReleased = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger order = new AtomicInteger();
        Runnable waiter = () -> {
            mine.lock();
            if (order.incrementAndGet() == 1) {
                first.countDown();
                mine.unlock(); // at once, while the other thread of the owner still sleeps
                firstReleased.countDown();
            }
            else {
                second.countDown();
                try {
                    done.await(20, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                mine.unlock();
            }
        };
        Thread a = new Thread(waiter);
        Thread b = new Thread(waiter);
        a.start();
        b.start();
        Thread.sleep(500); // both asleep
        held.unlock(); // hands it to one of them
        assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(firstReleased.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(second.await(10, TimeUnit.SECONDS)).as("the other thread of the owner got it").isTrue();
        try {
            // the owner believes it holds the lock: Redis must agree, and nobody else may take it
            java.util.Map<String, String> hash = redis.commands().hgetall(mine.getKey());
            boolean stolen = other.getLock(name).tryLock();
            assertThat(stolen).as("another client took the lock owner O holds; hash was %s", hash).isFalse();
            assertThat(hash).containsEntry(owner.id(), "1");
        }
        finally {
            done.countDown();
            a.join(5000);
            b.join(5000);
        }
    }
}
