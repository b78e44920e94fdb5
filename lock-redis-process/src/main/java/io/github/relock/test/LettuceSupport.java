package io.github.relock.test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.Transports;

/** Lettuce clients and Spring connection factories with test-friendly settings, all on one shared event loop. */
final class LettuceSupport {

    /** Default command timeout: short, so a fault test fails fast instead of hanging for a minute. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private LettuceSupport() {
    }

    // One set of event-loop threads for every client in the JVM: creating them per factory costs ~100 ms.
    private static final class Shared {
        static final ClientResources RESOURCES = create();

        private static ClientResources create() {
            ClientResources resources = DefaultClientResources.builder()
                    // reconnect within 100 ms of a restarted server instead of backing off up to 30 s
                    .reconnectDelay(Delay.exponential(Duration.ofMillis(1), Duration.ofMillis(100), 2,
                            TimeUnit.MILLISECONDS))
                    .build();
            // Lettuce shuts an event loop down when its last client goes; a client still reconnecting on it
            // then logs RejectedExecutionException. One reference that is never released keeps it for the JVM
            // (its threads are daemons).
            resources.eventLoopGroupProvider().allocate(Transports.eventLoopGroupClass());
            return resources;
        }
    }

    static ClientResources resources() {
        return Shared.RESOURCES;
    }

    static LettuceClientConfiguration.LettuceClientConfigurationBuilder clientConfiguration(Duration commandTimeout) {
        return LettuceClientConfiguration.builder()
                .clientResources(resources())
                .commandTimeout(commandTimeout)
                .shutdownQuietPeriod(Duration.ZERO)
                .shutdownTimeout(Duration.ofSeconds(2));
    }

    /** Client settings from a {@code redis://} or {@code rediss://} URI (TLS, client name), with our timeout. */
    static LettuceClientConfiguration clientConfiguration(RedisURI uri, Duration commandTimeout) {
        return LettuceClientConfiguration.builder()
                .apply(uri)
                .clientResources(resources())
                .commandTimeout(commandTimeout)
                .shutdownQuietPeriod(Duration.ZERO)
                .shutdownTimeout(Duration.ofSeconds(2))
                .build();
    }

    static LettuceClientConfiguration clusterClientConfiguration(Duration commandTimeout) {
        ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
                .enableAllAdaptiveRefreshTriggers() // follow MOVED/failover without waiting for a periodic refresh
                .build();
        return clientConfiguration(commandTimeout)
                .clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build())
                .build();
    }

    /** Creates and starts a factory; the caller destroys it. */
    static LettuceConnectionFactory startedFactory(RedisConfiguration configuration, LettuceClientConfiguration client) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client);
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    static void destroyQuietly(LettuceConnectionFactory factory) {
        try {
            factory.destroy();
        } catch (RuntimeException ignored) {
            // already destroyed, or its server is gone: nothing left to release
        }
    }

    /** A plain Lettuce client + connection for assertions; closing it releases both. */
    static final class Commands implements AutoCloseable {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;

        Commands(RedisURI uri) {
            this.client = RedisClient.create(resources(), uri);
            try {
                this.connection = client.connect();
            } catch (RuntimeException e) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                throw e;
            }
        }

        RedisCommands<String, String> sync() {
            return connection.sync();
        }

        @Override
        public void close() {
            try {
                connection.close();
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    static RedisURI uri(String host, int port, Duration timeout) {
        return RedisURI.builder().withHost(host).withPort(port).withTimeout(timeout).build();
    }
}
