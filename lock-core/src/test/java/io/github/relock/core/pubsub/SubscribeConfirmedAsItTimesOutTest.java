package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * A SUBSCRIBE held back by a frozen pub/sub connection is confirmed just as it times out: Lettuce fails it on its
 * timeout thread while the confirmation is read on the event loop. Either way the channel must not stay subscribed
 * with nobody waiting (Lettuce would subscribe it again after each reconnect): the client follows every SUBSCRIBE
 * that went unanswered with an UNSUBSCRIBE. Many joiners of one lock make the stretch between the failure and the
 * queue's end some milliseconds long; the thaw comes at a few points in it.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class SubscribeConfirmedAsItTimesOutTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final int JOINERS = 3_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aConfirmationReadAsTheSubscribeTimesOutIsUndone() throws Exception {
        List<String> left = new ArrayList<>();
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            FrozenPubSubTest.openPubSub(holder, waiter);
            long[] thawAfterTimeout = {4, 7, 10, 13, 5, 8, 11, 14};
            for (int i = 0; i < thawAfterTimeout.length; i++) {
                String name = "bk7:at-timeout:" + i;
                ReentrantDistributedLock held = holder.getLock(name);
                held.lock();
                proxy.freezePubSub(true);
                long start = System.nanoTime();
                List<CompletableFuture<Boolean>> waits = new ArrayList<>();
                for (int j = 0; j < JOINERS; j++) {
                    LockOwner owner = waiter.newOwner();
                    // over before the SUBSCRIBE times out: its failure ends the queue
                    waits.add(waiter.getLock(name, owner).tryLockAsync(Duration.ofMillis(300), Duration.ofSeconds(30),
                            owner));
                }
                for (CompletableFuture<Boolean> wait : waits) {
                    assertThat(wait.get(20, TimeUnit.SECONDS)).isFalse();
                }
                long thawIn = start + TimeUnit.MILLISECONDS.toNanos(TIMEOUT.toMillis() + thawAfterTimeout[i])
                        - System.nanoTime();
                if (thawIn > 0) {
                    TimeUnit.NANOSECONDS.sleep(thawIn);
                }
                proxy.freezePubSub(false);
                String channel = waiter.redisKeys(name).releaseChannel();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                String subscribers;
                while (!(subscribers = redis.server().command("PUBSUB", "NUMSUB", channel)).equals(channel + "\n0")
                        && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                if (!subscribers.equals(channel + "\n0")) {
                    left.add(channel + " (thawed " + thawAfterTimeout[i] + " ms after the timeout): "
                            + subscribers.replace('\n', ' '));
                }
                held.unlock();
            }
        }
        assertThat(left).as("channels still subscribed 3 s after the thaw, with nobody waiting").isEmpty();
    }
}
