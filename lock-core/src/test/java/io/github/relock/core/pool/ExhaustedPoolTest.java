package io.github.relock.core.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.DistributedLockException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * The client borrows one connection from a pool, at its first lock call, and keeps it until close(): an exhausted
 * pool then holds up no lock call. Before that first call, a pool that lends no connection within its wait is Redis
 * not answering, whether the factory borrows at getConnection() or at the first command (no shared native
 * connection): the call fails with relock's own exception, never the pool's.
 */
@Timeout(60)
@Tag("redis-version-independent")
class ExhaustedPoolTest {

    @Test
    void unlockDoesNotWaitForAnExhaustedPool() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            LettuceConnectionFactory factory = PooledFactories.pooled(server, 2, Duration.ofMillis(200));
            try (RedisLockClient client = RedisLockClient.builder(factory).build()) {
                ReentrantDistributedLock lock = client.getLock("exhausted:unlock");
                lock.lock();
                CountDownLatch lent = new CountDownLatch(1);
                Thread borrower = new Thread(() -> {
                    RedisConnection connection = factory.getConnection();
                    try {
                        connection.ping(); // the pool's last connection (the client keeps the other), kept a while
                        lent.countDown();
                        Thread.sleep(600);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    finally {
                        connection.close();
                    }
                });
                borrower.start();
                assertThat(lent.await(5, TimeUnit.SECONDS)).isTrue();
                long start = System.nanoTime();
                Throwable failure = catchThrowable(lock::unlock);
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                borrower.join();
                assertThat(failure).isNull();
                assertThat(tookMillis).as("ms unlock() took while the pool lent nothing").isLessThan(500);
                assertThat(server.commands().exists("lock:{exhausted:unlock}")).isZero();
            }
            finally {
                factory.destroy();
            }
        }
    }

    @Test
    void aLockCallFailsWithRelocksExceptionWhileThePoolLendsNothing() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            LettuceConnectionFactory factory = PooledFactories.pooled(server, 1, Duration.ofMillis(200));
            try (RedisLockClient client = RedisLockClient.builder(factory).build()) {
                RedisConnection connection = factory.getConnection();
                try {
                    connection.ping();
                    Throwable failure = catchThrowable(() -> client.getLock("exhausted:lock").tryLock());
                    assertThat(failure).isInstanceOf(DistributedLockException.class);
                }
                finally {
                    connection.close();
                }
            }
            finally {
                factory.destroy();
            }
        }
    }
}
