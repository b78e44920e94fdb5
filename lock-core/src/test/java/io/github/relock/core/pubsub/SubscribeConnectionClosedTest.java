package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
import io.lettuce.core.ClientOptions;

/**
 * A SUBSCRIBE whose connection closes before Redis answers it fails with Lettuce's generic RedisException
 * ("Connection closed"), which Spring wraps in a RedisSystemException, as it wraps an error reply. It is no
 * answer from Redis: the wait must go on (look again, subscribe again) and take the lock once it is free, not
 * end with "Redis refused it".
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class SubscribeConnectionClosedTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aSubscribeCutBeforeItsReplyWithoutAutoReconnectDoesNotEndTheWait() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(),
                        Duration.ofSeconds(3), ClientOptions.builder().autoReconnect(false).build())).build()) {
            String name = "cut-subscribe";
            assertThat(holder.getLock(name).tryLock(0, 1_500, TimeUnit.MILLISECONDS)).isTrue();
            String channel = waiter.redisKeys(name).releaseChannel();
            proxy.cutAfterReplyTo("SUBSCRIBE\r\n$" + channel.length() + "\r\n" + channel);
            ReentrantDistributedLock lock = waiter.getLock(name);
            long start = System.nanoTime();
            boolean acquired;
            try {
                acquired = lock.tryLock(10, TimeUnit.SECONDS);
            }
            catch (RuntimeException ex) {
                System.out.printf("wait ended after %d ms with %s%n", (System.nanoTime() - start) / 1_000_000, ex);
                throw new AssertionError("the wait ended although Redis refused nothing and the lock frees at 1.5 s", ex);
            }
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("SUBSCRIBE cut before its reply (cuts: %d): acquired=%s after %d ms%n", proxy.cuts(),
                    acquired, tookMillis);
            assertThat(proxy.cuts()).as("the SUBSCRIBE was cut").isEqualTo(1);
            assertThat(acquired).isTrue();
            assertThat(tookMillis).isLessThan(3_000);
            lock.unlock();
        }
    }
}
