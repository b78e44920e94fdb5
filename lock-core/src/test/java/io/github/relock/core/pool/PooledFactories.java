package io.github.relock.core.pool;

import java.time.Duration;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import io.github.relock.test.RedisServer;
import io.lettuce.core.api.StatefulConnection;

/** Started Lettuce factories whose connections come from a small pool, with no shared native connection. */
final class PooledFactories {

    private PooledFactories() {
    }

    /**
     * A factory lending at most {@code connections} connections; a borrow waits up to {@code maxWait} (null: the
     * pool's default, for ever) before it fails.
     */
    static LettuceConnectionFactory pooled(RedisServer server, int connections, @Nullable Duration maxWait) {
        GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(connections);
        pool.setMaxIdle(connections);
        if (maxWait != null) {
            pool.setMaxWait(maxWait);
        }
        LettucePoolingClientConfiguration clients = LettucePoolingClientConfiguration.builder()
                .poolConfig(pool).commandTimeout(Duration.ofSeconds(5)).build();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()), clients);
        factory.setShareNativeConnection(false);
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }
}
