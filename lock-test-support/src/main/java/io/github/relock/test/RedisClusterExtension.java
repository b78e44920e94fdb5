package io.github.relock.test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One {@link RedisClusterSetup} per test class: started before all tests, every running primary flushed
 * before each, closed after all. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisClusterExtension cluster = new RedisClusterExtension();        // 3 primaries
 * @RegisterExtension
 * static final RedisClusterExtension cluster = new RedisClusterExtension(3, 1);    // + 1 replica each
 * }</pre>
 *
 * <p>Slot migrations are not undone between tests. Injectable parameter: {@link RedisClusterSetup}.
 */
public final class RedisClusterExtension extends TopologyExtension<RedisClusterSetup> {

    /** 3 primaries, no replicas. Use on a {@code static} field annotated with {@code @RegisterExtension}. */
    public RedisClusterExtension() {
        this(3, 0);
    }

    /** {@code primaries} primaries with {@code replicasPerPrimary} replicas each. */
    public RedisClusterExtension(int primaries, int replicasPerPrimary) {
        super(RedisClusterSetup.class, () -> RedisClusterSetup.start(primaries, replicasPerPrimary));
    }

    @Override
    void flush(RedisClusterSetup setup) {
        for (RedisServer node : setup.nodes()) {
            if (node.isRunning() && !node.isPaused() && String.valueOf(node.command("ROLE")).startsWith("master")) {
                node.flushAll();
            }
        }
    }

    @Override
    LettuceConnectionFactory connectionFactory(RedisClusterSetup setup) {
        return setup.newConnectionFactory();
    }
}
