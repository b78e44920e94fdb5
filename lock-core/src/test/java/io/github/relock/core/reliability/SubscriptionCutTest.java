package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A waiter whose pub/sub connection is cut while it opens (Lettuce: "Connection closed prematurely") still
 * gets the lock once it is released: a failed subscription is a missed wake-up, not a failed wait. Found by
 * scenario 16, where such a cut ended the whole wait with an exception.
 */
class SubscriptionCutTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    @Timeout(30)
    void aBlockingWaiterWhoseSubscribeIsCutStillGetsTheLock() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holderClient = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiterClient = RedisLockClient.builder(
                        factories.standalone(proxy.port(), COMMAND_TIMEOUT)).build()) {
            openCommandConnection(waiterClient);
            Thread releaser = holdFor(holderClient.getLock("cut-sync"), 300);
            proxy.cutAfterReplyTo("HELLO"); // the first thing a new connection sends
            ReentrantDistributedLock waited = waiterClient.getLock("cut-sync");
            assertThat(waited.tryLock(10, TimeUnit.SECONDS)).isTrue();
            waited.unlock();
            releaser.join();
            assertThat(proxy.cuts()).as("the new pub/sub connection was cut").isEqualTo(1);
        }
    }

    @Test
    @Timeout(30)
    void anAsyncWaiterWhoseSubscribeIsCutStillGetsTheLock() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holderClient = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiterClient = RedisLockClient.builder(
                        factories.standalone(proxy.port(), COMMAND_TIMEOUT)).build()) {
            openCommandConnection(waiterClient);
            Thread releaser = holdFor(holderClient.getLock("cut-async"), 300);
            proxy.cutAfterReplyTo("HELLO"); // the first thing a new connection sends
            ReentrantDistributedLock waited = waiterClient.getLock("cut-async");
            LockOwner owner = waiterClient.newOwner();
            assertThat(waited.tryLockAsync(Duration.ofSeconds(10), null, owner).get(15, TimeUnit.SECONDS)).isTrue();
            waited.unlockAsync(owner).get(5, TimeUnit.SECONDS);
            releaser.join();
            assertThat(proxy.cuts()).as("the new pub/sub connection was cut").isEqualTo(1);
        }
    }

    /** A lock call first, so that the next new connection is the one for pub/sub. */
    private static void openCommandConnection(RedisLockClient waiterClient) {
        ReentrantDistributedLock warmUp = waiterClient.getLock("cut-warm-up");
        assertThat(warmUp.tryLock()).isTrue();
        warmUp.unlock();
    }

    /** Takes the lock on a new thread, returns once it is held, and releases it there after {@code millis}. */
    private static Thread holdFor(ReentrantDistributedLock lock, long millis) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            lock.lock();
            held.countDown();
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            finally {
                lock.unlock();
            }
        });
        thread.start();
        held.await();
        return thread;
    }
}
