package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;

import io.github.relock.core.DelegatingConnectionFactory;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A subscribe that throws an {@link Error} (on opening the pub/sub connection, after Redis took it, or on a
 * waiter's channel) leaves no subscribed connection behind, and later waiters are still woken by the release
 * announcement; once they leave, {@code PUBSUB NUMSUB} is back to its baseline.
 */
@Timeout(90)
class SubscribeErrorTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final AtomicBoolean failNextOpen = new AtomicBoolean();
    final AtomicBoolean failNextChannel = new AtomicBoolean();
    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(new Failing(redis.newConnectionFactory())).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void anErrorOnOpeningThePubSubConnectionLeavesNoSubscriberBehind() throws Exception {
        failNextOpen.set(true);
        System.out.printf("waiter during the open error: %s%n", waitThroughError("open-error:1"));
        assertWokenByAnnouncements("open-error:2");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            java.util.Map<String, Long> subscribers = redis.commands().pubsubNumsub(
                    redis.commands().pubsubChannels().toArray(String[]::new));
            System.out.printf("subscribers per channel: %s%n", subscribers);
            assertThat(subscribers.values()).as("one connection subscribed: the one that failed is closed")
                    .allMatch(count -> count <= 1);
        });
    }

    @Test
    void anErrorOnAWaitersSubscribeLeavesTheLaneWorking() throws Exception {
        wakeUpMillis("channel-error:0");
        failNextChannel.set(true);
        System.out.printf("waiter during the channel error: %s%n", waitThroughError("channel-error:1"));
        assertWokenByAnnouncements("channel-error:2");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(
                () -> assertThat(numsub("channel-error:1")).as("channel of the failed subscribe").isZero());
    }

    private void assertWokenByAnnouncements(String name) throws Exception {
        List<Long> wakeUps = new ArrayList<>();
        for (int round = 0; round < 7; round++) {
            wakeUps.add(wakeUpMillis(name));
        }
        Collections.sort(wakeUps);
        System.out.printf("ms from release to acquisition after the error: %s%n", wakeUps);
        assertThat(wakeUps.get(wakeUps.size() / 2)).as("median: woken by the announcement").isLessThan(40);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(numsub(name)).isZero());
    }

    private long wakeUpMillis(String name) throws Exception {
        ReentrantDistributedLock held = other.getLock(name);
        held.lock();
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            ReentrantDistributedLock lock = client.getLock(name);
            try {
                assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
                long acquired = System.nanoTime();
                lock.unlock();
                return acquired;
            }
            catch (InterruptedException ex) {
                throw new IllegalStateException(ex);
            }
        });
        // until the waiter subscribed, or its subscribe met the injected Error (on a loaded machine it may start late)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (numsub(name) == 0 && (failNextChannel.get() || failNextOpen.get()) && !waiter.isDone()
                && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
        Thread.sleep(300);
        long released = System.nanoTime();
        held.unlock();
        return TimeUnit.NANOSECONDS.toMillis(waiter.get(20, TimeUnit.SECONDS) - released);
    }

    /** A wait on which the injected Error may surface: the Error, or ms from release to acquisition. */
    private String waitThroughError(String name) throws Exception {
        try {
            return wakeUpMillis(name) + " ms";
        }
        catch (java.util.concurrent.ExecutionException ex) {
            assertThat(ex.getCause()).isInstanceOf(LinkageError.class);
            ReentrantDistributedLock held = other.getLock(name);
            if (held.isHeldByCurrentThread()) {
                held.unlock();
            }
            assertThat(client.heldLocks()).as("the waiter took nothing").isEmpty();
            return ex.getCause().toString();
        }
    }

    private long numsub(String name) {
        String channel = client.redisKeys(name).releaseChannel();
        return redis.commands().pubsubNumsub(channel).getOrDefault(channel, 0L);
    }

    private final class Failing extends DelegatingConnectionFactory {

        Failing(RedisConnectionFactory delegate) {
            super(delegate);
        }

        @Override
        public RedisConnection getConnection() {
            RedisConnection real = super.getConnection();
            return proxy(RedisConnection.class, real, (method, args) -> {
                if (method.getName().equals("subscribe")) {
                    Object result = method.invoke(real, args);
                    if (failNextOpen.compareAndSet(true, false)) {
                        throw new LinkageError("injected by the test, after Redis took the subscription");
                    }
                    return result;
                }
                Object result = method.invoke(real, args);
                // the subscribed connection's Lettuce commands, which the client subscribes a waiter's channel with
                return method.getName().equals("getNativeConnection") && result instanceof RedisPubSubAsyncCommands
                        ? proxy(RedisPubSubAsyncCommands.class, result, (m, a) -> {
                            if (m.getName().equals("subscribe") && failNextChannel.compareAndSet(true, false)) {
                                throw new LinkageError("injected by the test");
                            }
                            return m.invoke(result, a);
                        })
                        : result;
            });
        }
    }

    @FunctionalInterface
    private interface Call {
        Object call(java.lang.reflect.Method method, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, Object target, Call call) {
        return type.cast(Proxy.newProxyInstance(SubscribeErrorTest.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> {
                    try {
                        return call.call(method, args);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                }));
    }
}
