package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
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

import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;

import io.github.relock.test.RedisServerExtension;

/**
 * A pub/sub call of the client that throws an {@link Error} (here an UNSUBSCRIBE) does not stop the calls made
 * after it: later waiters still subscribe and are woken by the release announcement, not by a look every 100 ms,
 * and once they leave, {@code PUBSUB NUMSUB} is back to where it was.
 */
@Timeout(60)
class PubSubAfterAnErrorTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final AtomicBoolean failNextUnsubscribe = new AtomicBoolean();
    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(new FailingUnsubscribe(redis.newConnectionFactory())).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void waitersAreWokenByAnnouncementsAfterAnUnsubscribeThrewAnError() throws Exception {
        String first = "after-error:1";
        String second = "after-error:2";
        wakeUpMillis(first); // subscribes and unsubscribes once: the connection is there
        failNextUnsubscribe.set(true);
        wakeUpMillis(first); // its waiter leaves: the unsubscribe throws
        await().atMost(Duration.ofSeconds(5)).until(() -> !failNextUnsubscribe.get());

        List<Long> wakeUps = new ArrayList<>();
        for (int round = 0; round < 7; round++) {
            wakeUps.add(wakeUpMillis(round % 2 == 0 ? second : first));
        }
        Collections.sort(wakeUps);
        System.out.printf("ms from release to acquisition after the error: %s%n", wakeUps);
        assertThat(wakeUps.get(wakeUps.size() / 2)).as("median: woken by the announcement, not a 100 ms look")
                .isLessThan(40);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(numsub(first)).as("unsubscribed once its waiters left").isZero();
            assertThat(numsub(second)).as("unsubscribed once its waiters left").isZero();
        });
    }

    /** One waiter of {@code client} on {@code name}, held by {@code other}: ms from release to acquisition. */
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
        await().atMost(Duration.ofSeconds(5)).alias("the waiter subscribed to " + name).until(() -> numsub(name) >= 1);
        Thread.sleep(50);
        long released = System.nanoTime();
        held.unlock();
        return TimeUnit.NANOSECONDS.toMillis(waiter.get(20, TimeUnit.SECONDS) - released);
    }

    private long numsub(String name) {
        String channel = client.redisKeys(name).releaseChannel();
        return redis.commands().pubsubNumsub(channel).getOrDefault(channel, 0L);
    }

    /** Hands out its delegate's connections, whose pub/sub commands throw an Error on the next UNSUBSCRIBE if told. */
    private final class FailingUnsubscribe extends DelegatingConnectionFactory {

        FailingUnsubscribe(org.springframework.data.redis.connection.RedisConnectionFactory delegate) {
            super(delegate);
        }

        @Override
        public RedisConnection getConnection() {
            RedisConnection real = super.getConnection();
            return proxy(RedisConnection.class, real, (method, args) -> {
                Object result = method.invoke(real, args);
                // the subscribed connection's Lettuce commands, which the client unsubscribes with
                return method.getName().equals("getNativeConnection") && result instanceof RedisPubSubAsyncCommands
                        ? proxy(RedisPubSubAsyncCommands.class, result, (m, a) -> {
                            if (m.getName().equals("unsubscribe") && failNextUnsubscribe.compareAndSet(true, false)) {
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
        Object call(Method method, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, Object target, Call call) {
        return type.cast(Proxy.newProxyInstance(PubSubAfterAnErrorTest.class.getClassLoader(), new Class<?>[] {type},
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
