package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * The client's pub/sub connection stops answering (half-dead: no reset, SUBSCRIBE times out) while commands
 * still work. Waiters then poll, and subscribe again every 100 ms.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class FrozenPubSubTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /**
     * Waiters of one lock subscribe one after another under the lock's queue lock, each for a whole command
     * timeout: a timed wait behind a few of them overran its wait time by several timeouts.
     */
    @Test
    void aTimedWaitBehindOtherSubscribersEndsInTime() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            openPubSub(holder, waiter);
            proxy.freezePubSub(true);
            ReentrantDistributedLock held = holder.getLock("bk7:frozen");
            held.lock();
            ReentrantDistributedLock lock = waiter.getLock("bk7:frozen");
            List<Thread> others = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Thread thread = new Thread(() -> {
                    lock.lock();
                    lock.unlock();
                });
                thread.setDaemon(true);
                thread.start();
                others.add(thread);
            }
            Thread.sleep(300);
            long start = System.nanoTime();
            assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isFalse();
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            proxy.freezePubSub(false); // the rest need not wait out timeouts
            held.unlock();
            for (Thread thread : others) {
                thread.join(10_000);
                assertThat(thread.isAlive()).as("a lock() after the release").isFalse();
            }
            // the wait time, one timeout of its own subscribe, and slack for a loaded machine
            assertThat(tookMillis).as("ms a 1 s tryLock took").isLessThan(1_000 + TIMEOUT.toMillis() + 1_500);
        }
    }

    /**
     * A SUBSCRIBE that timed out still runs once the connection answers again: nobody waits on that channel
     * any more, yet it stays subscribed (and Lettuce subscribes it again after every reconnect).
     */
    @Test
    void aSubscribeThatTimedOutLeavesNoSubscriptionBehind() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            openPubSub(holder, waiter);
            proxy.freezePubSub(true);
            ReentrantDistributedLock held = holder.getLock("bk7:leak");
            held.lock();
            ReentrantDistributedLock lock = waiter.getLock("bk7:leak");
            assertThat(lock.tryLock(1500, TimeUnit.MILLISECONDS)).isFalse();
            held.unlock();
            proxy.freezePubSub(false);
            String channel = waiter.redisKeys("bk7:leak").releaseChannel();
            Thread.sleep(1_000); // the buffered commands reach Redis
            assertThat(redis.server().command("PUBSUB", "NUMSUB", channel)).as("subscribers of " + channel)
                    .isEqualTo(channel + "\n0");
            // and the client still works: a wait that subscribes, and leaves
            CountDownLatch taken = new CountDownLatch(1);
            Thread release = new Thread(() -> {
                held.lock();
                taken.countDown();
                sleep(300);
                held.unlock();
            });
            release.start();
            taken.await();
            assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
            lock.unlock();
            release.join();
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                    assertThat(redis.server().command("PUBSUB", "NUMSUB", channel)).isEqualTo(channel + "\n0"));
        }
    }

    /**
     * The SUBSCRIBEs of a wait that gave up are answered only after every one of them timed out and the waiter's
     * queue is gone: each confirmation then names a channel nobody here waits on, and is undone.
     */
    @Test
    void aSubscribeConfirmedAfterItsWaitWasOverIsUndone() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            openPubSub(holder, waiter);
            proxy.freezePubSub(true);
            ReentrantDistributedLock held = holder.getLock("bk7:late");
            held.lock();
            assertThat(waiter.getLock("bk7:late").tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
            held.unlock();
            String channel = waiter.redisKeys("bk7:late").releaseChannel();
            // every SUBSCRIBE timed out (1 s after it was sent) and the channel's queue is gone (kept 0.5 s after)
            Thread.sleep(2_500);
            proxy.freezePubSub(false);
            Thread.sleep(1_000); // the held-back commands reach Redis and their confirmations come back
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                    assertThat(redis.server().command("PUBSUB", "NUMSUB", channel)).as("subscribers of " + channel)
                            .isEqualTo(channel + "\n0"));
        }
    }

    /** A first wait, so that the client's pub/sub connection is open (and known to the proxy) before the freeze. */
    static void openPubSub(RedisLockClient holder, RedisLockClient waiter) {
        ReentrantDistributedLock held = holder.getLock("bk7:open");
        held.lock();
        try {
            assertThat(waiter.getLock("bk7:open").tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
        finally {
            held.unlock();
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
