package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.test.RedisServer;
import io.github.relock.test.RedisServerExtension;

/** A lost lock and an unanswered operation are both {@link DistributedLockException}s that name the lock alike. */
@Timeout(60)
class DistributedLockExceptionTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aLostLockNamesTheLockAndItsRedisKey() {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("order:42");
            lock.lock();
            redis.commands().del(lock.getKey());
            assertThatThrownBy(lock::unlock).isInstanceOfSatisfying(LockLostException.class, lost -> {
                assertThat(lost).isInstanceOf(DistributedLockException.class);
                assertThat(lost.getLockName()).isEqualTo("order:42");
                assertThat(lost.getLockKey()).isEqualTo(lock.getKey());
            });
        }
    }

    @Test
    void anUnansweredOperationNamesTheLockAndItsRedisKey() {
        int port;
        try (RedisServer gone = RedisServer.start()) {
            port = gone.port();
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(300)).build());
        factory.afterPropertiesSet();
        factory.start();
        try (RedisLockClient client = RedisLockClient.builder(factory).build()) {
            ReentrantDistributedLock lock = client.getLock("order:43");
            assertThatThrownBy(lock::lock).isInstanceOfSatisfying(LockOperationException.class, failed -> {
                assertThat(failed).isInstanceOf(DistributedLockException.class);
                assertThat(failed.getLockName()).isEqualTo("order:43");
                assertThat(failed.getLockKey()).isEqualTo(lock.getKey());
            });
        }
        finally {
            factory.destroy();
        }
    }
}
