package io.github.relock.core.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Connection factories to addresses the fixtures do not know (a {@link ChaosProxy}, Sentinels named in
 * another JVM), on one shared set of Lettuce event-loop threads that reconnect within 100 ms.
 */
public final class Factories implements AutoCloseable {

    // Lettuce schedules reconnects on a wheel timer that ticks every 100 ms by default: 5 ms here
    private final HashedWheelTimer timer = new HashedWheelTimer(new DefaultThreadFactory("chaos-timer", true), 5,
            TimeUnit.MILLISECONDS);
    private final ClientResources resources = DefaultClientResources.builder()
            .reconnectDelay(Delay.exponential(Duration.ofMillis(1), Duration.ofMillis(100), 2, TimeUnit.MILLISECONDS))
            .timer(timer)
            .build();
    private final List<LettuceConnectionFactory> created = new CopyOnWriteArrayList<>();

    public LettuceConnectionFactory standalone(int port, Duration commandTimeout) {
        return started(new RedisStandaloneConfiguration("127.0.0.1", port), commandTimeout);
    }

    /** A factory that finds the primary of {@code master} through the Sentinels at {@code addresses} (host:port). */
    public LettuceConnectionFactory sentinel(String master, Set<String> addresses, Duration commandTimeout) {
        return started(new RedisSentinelConfiguration(master, addresses), commandTimeout);
    }

    /** As {@link #standalone(int, Duration)}, with Lettuce client options of its own (e.g. no auto-reconnect). */
    public LettuceConnectionFactory standalone(int port, Duration commandTimeout, ClientOptions options) {
        return started(new RedisStandaloneConfiguration("127.0.0.1", port), commandTimeout, options);
    }

    private LettuceConnectionFactory started(RedisConfiguration configuration, Duration commandTimeout) {
        return started(configuration, commandTimeout, null);
    }

    private LettuceConnectionFactory started(RedisConfiguration configuration, Duration commandTimeout,
            @Nullable ClientOptions options) {
        LettuceClientConfiguration.LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder()
                .clientResources(resources).commandTimeout(commandTimeout)
                .shutdownQuietPeriod(Duration.ZERO).shutdownTimeout(Duration.ofSeconds(2));
        if (options != null) {
            builder.clientOptions(options);
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, builder.build());
        factory.afterPropertiesSet();
        factory.start();
        created.add(factory);
        return factory;
    }

    @Override
    public void close() {
        for (LettuceConnectionFactory factory : created) {
            try {
                factory.destroy();
            }
            catch (RuntimeException ex) {
                // already gone
            }
        }
        resources.shutdown(0, 2, TimeUnit.SECONDS);
        timer.stop();
    }
}
