package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
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
 * A waiter's SUBSCRIBE times out on a frozen pub/sub connection and, its queue empty, is undone by an UNSUBSCRIBE;
 * another waiter of the same lock joins right then. Once the connection answers again, the release wakes it.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class JoinAsUnansweredSubscribeIsUndoneTest {

    private static final Duration TIMEOUT = Duration.ofMillis(300);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aWaiterJoiningAsAnUnansweredSubscribeIsUndoneIsWokenByTheRelease() throws Exception {
        int rounds = 2;
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            FrozenPubSubTest.openPubSub(holder, waiter);
            for (int round = 0; round < rounds; round++) {
                String name = "jx:" + round;
                ReentrantDistributedLock held = holder.getLock(name);
                held.lock();
                proxy.freezePubSub(true);
                ReentrantDistributedLock lock = waiter.getLock(name);
                CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> tryLock(lock, 320));
                Thread.sleep(270 + round * 40L); // the second joins around the first's SUBSCRIBE timing out
                CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> tryLock(lock, 20_000));
                assertThat(first.get(5, TimeUnit.SECONDS)).isFalse();
                Thread.sleep(150);
                proxy.freezePubSub(false);
                Thread.sleep(400); // the second subscribes again and sleeps on
                long released = System.nanoTime();
                held.unlock();
                assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
                long wokenMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
                assertThat(wokenMillis).as("ms from the release to the waiter holding, round " + round)
                        .isLessThan(1_500);
                String channel = waiter.redisKeys(name).releaseChannel();
                await().atMost(Duration.ofMillis(1_500)).untilAsserted(() -> assertThat(
                        redis.server().command("PUBSUB", "NUMSUB", channel)).isEqualTo(channel + "\n0"));
            }
        }
    }

    private static boolean tryLock(ReentrantDistributedLock lock, long waitMillis) {
        try {
            if (lock.tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
                lock.unlock();
                return true;
            }
            return false;
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
