package io.github.relock.test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The lifecycle shared by the multi-process extensions: one setup per test class, started before all
 * tests, flushed before each, closed after all, with the factories handed out closed with it.
 *
 * @param <S> the setup, e.g. {@link RedisClusterSetup}
 */
abstract class TopologyExtension<S extends AutoCloseable> implements BeforeAllCallback, BeforeEachCallback,
        AfterAllCallback, ParameterResolver {

    private final Class<S> type;
    private final Supplier<S> starter;
    private @Nullable String ownerId;
    private @Nullable S setup;
    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    TopologyExtension(Class<S> type, Supplier<S> starter) {
        this.type = type;
        this.starter = starter;
    }

    /** Empties the data that tests write, on whichever nodes take writes now. */
    abstract void flush(S setup);

    abstract LettuceConnectionFactory connectionFactory(S setup);

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (ownerId == null) { // a @Nested class reuses the enclosing class's setup
            ownerId = context.getUniqueId();
            setup = starter.get();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        flush(setup());
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) throws Exception {
        if (!context.getUniqueId().equals(ownerId)) {
            return;
        }
        try {
            factories.forEach(LettuceSupport::destroyQuietly);
            if (setup != null) {
                setup.close();
            }
        }
        finally {
            factories.clear();
            setup = null;
            ownerId = null;
        }
    }

    /** The running setup, for fault control. */
    public synchronized S setup() {
        if (setup == null) {
            throw new IllegalStateException(type.getSimpleName() + " is not started: register " + getClass().getSimpleName()
                    + " on a static field with @RegisterExtension (beforeAll starts it)");
        }
        return setup;
    }

    /** A new, started factory for this topology; destroyed after all tests if not before. */
    public synchronized LettuceConnectionFactory newConnectionFactory() {
        LettuceConnectionFactory factory = connectionFactory(setup());
        factories.add(factory);
        return factory;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == type;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return setup();
    }
}
