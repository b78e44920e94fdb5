package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.core.UnsupportedRedisDriverException;
import io.github.relock.test.RedisServer;

/**
 * Jedis with {@code minReplicas} is refused at build; behind a wrapper that could not connect at build, the first
 * acquisition grants nothing and is refused as the driver it is, not as "Redis did not answer" (it did).
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class JedisMinReplicasTest {

    @Test
    void jedisWithMinReplicasIsRefusedAtBuildOrAtTheFirstAcquisition() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            JedisConnectionFactory jedis = new JedisConnectionFactory(
                    new RedisStandaloneConfiguration(primary.host(), primary.port()));
            jedis.afterPropertiesSet();
            jedis.start();
            try {
                assertThatThrownBy(() -> RedisLockClient.builder(jedis).minReplicas(1).build())
                        .isInstanceOf(UnsupportedRedisDriverException.class);
                // behind a wrapper that cannot connect at build time, the client is built; its first acquisition
                AtomicBoolean reachable = new AtomicBoolean(false);
                try (RedisLockClient client = RedisLockClient.builder(wrap(jedis, reachable)).minReplicas(1)
                        .replicaAckTimeout(Duration.ofMillis(200)).build()) {
                    reachable.set(true);
                    ReentrantDistributedLock lock = client.getLock("jedis");
                    Throwable failure = null;
                    boolean got = false;
                    try {
                        got = lock.tryLock();
                    }
                    catch (RuntimeException ex) {
                        failure = ex;
                    }
                    System.out.printf("wrapped Jedis, minReplicas(1): tryLock() %s%n",
                            failure == null ? "returned " + got : failure.toString());
                    assertThat(got).as("a lock granted over Jedis, which cannot WAIT on its own connection").isFalse();
                    // the refusal a wrapped Jedis gets at its first wait, not "Redis did not answer" (it did)
                    assertThat(failure).as("refused as the driver it is").isInstanceOf(UnsupportedRedisDriverException.class)
                            .hasMessageContaining("spring.data.redis.client-type=lettuce");
                    assertThat(primary.command("EXISTS", lock.getKey())).as("nothing left in Redis").isEqualTo("0");
                }
            }
            finally {
                jedis.destroy();
            }
        }
    }

    /** A factory that hides what it wraps, and cannot connect while {@code reachable} is false. */
    private static RedisConnectionFactory wrap(RedisConnectionFactory target, AtomicBoolean reachable) {
        return (RedisConnectionFactory) Proxy.newProxyInstance(JedisMinReplicasTest.class.getClassLoader(),
                new Class<?>[] {RedisConnectionFactory.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && !reachable.get()) {
                        throw new RedisConnectionFailureException("not reachable yet");
                    }
                    try {
                        return method.invoke(target, args);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                });
    }
}
