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
public final class RedisSentinelExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback,
        ParameterResolver {

    private @Nullable String ownerId;
    private @Nullable RedisSentinelSetup setup;
    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    /** Use on a {@code static} field annotated with {@code @RegisterExtension}. */
    public RedisSentinelExtension() {
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (ownerId == null) { // a @Nested class reuses the enclosing class's setup
            ownerId = context.getUniqueId();
            setup = RedisSentinelSetup.start();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        RedisServer primary = setup().primary();
        if (primary.isRunning() && !primary.isPaused()) {
            primary.flushAll();
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

    /** The running setup, for fault control ({@link RedisSentinelSetup#failover()}, ...). */
    public synchronized RedisSentinelSetup setup() {
        if (setup == null) {
            throw new IllegalStateException("Sentinel setup is not started: register RedisSentinelExtension on a"
                    + " static field with @RegisterExtension (beforeAll starts it)");
        }
        return setup;
    }

    /** A new, started Sentinel-aware factory; destroyed after all tests if not before. */
    public synchronized LettuceConnectionFactory newConnectionFactory() {
        LettuceConnectionFactory factory = setup().newConnectionFactory();
        factories.add(factory);
        return factory;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RedisSentinelSetup.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return setup();
    }
}
