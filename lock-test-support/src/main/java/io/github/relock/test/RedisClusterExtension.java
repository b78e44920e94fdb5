package io.github.relock.test;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
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
public final class RedisClusterExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback,
        ParameterResolver {

    private final int primaries;
    private final int replicasPerPrimary;
    private @Nullable String ownerId;
    private @Nullable RedisClusterSetup setup;
    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    /** 3 primaries, no replicas. Use on a {@code static} field annotated with {@code @RegisterExtension}. */
    public RedisClusterExtension() {
        this(3, 0);
    }

    /** {@code primaries} primaries with {@code replicasPerPrimary} replicas each. */
    public RedisClusterExtension(int primaries, int replicasPerPrimary) {
        this.primaries = primaries;
        this.replicasPerPrimary = replicasPerPrimary;
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (ownerId == null) { // a @Nested class reuses the enclosing class's cluster
            ownerId = context.getUniqueId();
            setup = RedisClusterSetup.start(primaries, replicasPerPrimary);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        for (RedisServer node : setup().nodes()) {
            if (node.isRunning() && !node.isPaused() && String.valueOf(node.command("ROLE")).startsWith("master")) {
                node.flushAll();
            }
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (!context.getUniqueId().equals(ownerId)) {
            return;
        }
        try {
            factories.forEach(LettuceSupport::destroyQuietly);
            if (setup != null) {
                setup.close();
            }
        } finally {
            factories.clear();
            setup = null;
            ownerId = null;
        }
    }

    /** The running cluster, for {@link RedisClusterSetup#migrateSlot(int, RedisServer)} and node control. */
    public synchronized RedisClusterSetup setup() {
        if (setup == null) {
            throw new IllegalStateException("cluster is not started: register RedisClusterExtension on a static"
                    + " field with @RegisterExtension (beforeAll starts it)");
        }
        return setup;
    }

    /** A new, started cluster factory; destroyed after all tests if not before. */
    public synchronized LettuceConnectionFactory newConnectionFactory() {
        LettuceConnectionFactory factory = setup().newConnectionFactory();
        factories.add(factory);
        return factory;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RedisClusterSetup.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return setup();
    }
}
