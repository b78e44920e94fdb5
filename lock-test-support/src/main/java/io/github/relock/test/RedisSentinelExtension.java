package io.github.relock.test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One {@link RedisSentinelSetup} per test class: started before all tests, the current primary flushed
 * before each (if it runs), closed after all. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisSentinelExtension sentinel = new RedisSentinelExtension();
 * }</pre>
 *
 * <p>Failovers are not undone between tests: the primary of one test may be the replica of the previous.
 * Injectable parameter: {@link RedisSentinelSetup}.
 */
public final class RedisSentinelExtension extends TopologyExtension<RedisSentinelSetup> {

    /** Use on a {@code static} field annotated with {@code @RegisterExtension}. */
    public RedisSentinelExtension() {
        super(RedisSentinelSetup.class, RedisSentinelSetup::start);
    }

    @Override
    void flush(RedisSentinelSetup setup) {
        RedisServer primary = setup.primary();
        if (primary.isRunning() && !primary.isPaused()) {
            primary.flushAll();
        }
    }

    @Override
    LettuceConnectionFactory connectionFactory(RedisSentinelSetup setup) {
        return setup.newConnectionFactory();
    }
}
