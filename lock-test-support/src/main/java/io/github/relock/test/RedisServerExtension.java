package io.github.relock.test;

import java.lang.reflect.Parameter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.opentest4j.TestAbortedException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * One Redis per test class: started before all tests, flushed ({@code FLUSHALL}) before each, stopped after
 * all. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 *
 * @Test
 * void test(RedisConnectionFactory factory, RedisServer server) { ... server.kill(); ... }
 * }</pre>
 *
 * <p>Which Redis: env {@code REDIS_URL} (e.g. {@code redis://127.0.0.1:6379}) if set, no process; else
 * {@code -Dredis.image=redis:8} in a Testcontainers container (tests are skipped with the reason when no
 * Docker engine answers); else a {@link RedisServer} process. Fault control ({@link #server()}) needs the
 * process: with the other two, tests that ask for it are skipped.
 *
 * <p>Before each test a killed server is restarted and a paused one resumed, so one test's faults do not
 * leak into the next. Injectable parameters: {@link RedisServer}, {@link RedisConnectionFactory},
 * {@link LettuceConnectionFactory} (the shared one) and {@link RedisCommands}. A {@code @Nested} class
 * shares the enclosing class's Redis.
 */
public final class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback,
        ParameterResolver {

    static final String REDIS_URL_ENV = "REDIS_URL";
    static final String IMAGE_PROPERTY = "redis.image";

    private @Nullable String ownerId;
    private @Nullable RedisServer server;
    private @Nullable AutoCloseable container;
    private @Nullable RedisURI uri;
    private String source = "";
    private String version = "";
    private @Nullable LettuceConnectionFactory sharedFactory;
    private LettuceSupport.@Nullable Commands commands;
    private final List<LettuceConnectionFactory> extraFactories = new ArrayList<>();

    /** Use on a {@code static} field annotated with {@code @RegisterExtension}. */
    public RedisServerExtension() {
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (ownerId != null) {
            return; // a @Nested class reuses the enclosing class's Redis
        }
        ownerId = context.getUniqueId();
        String url = System.getenv(REDIS_URL_ENV);
        String image = System.getProperty(IMAGE_PROPERTY);
        RedisURI target;
        if (url != null && !url.isBlank()) {
            target = RedisURI.create(url.trim());
            source = REDIS_URL_ENV + "=" + url.trim();
        } else if (image != null && !image.isBlank()) {
            ContainerRedis started = startContainer(image.trim());
            container = started;
            target = RedisURI.create(started.host(), started.port());
            source = IMAGE_PROPERTY + "=" + image.trim();
        } else {
            RedisServer started = RedisServer.start();
            server = started;
            target = RedisURI.create(started.host(), started.port());
            source = started.toString();
        }
        target.setTimeout(LettuceSupport.DEFAULT_TIMEOUT);
        uri = target;
        version = Resp.infoField(commands().info("server"), "redis_version");
    }

    // Testcontainers is optional: its classes are only loaded here, and their absence skips the tests.
    private static ContainerRedis startContainer(String image) {
        try {
            return ContainerRedis.start(image);
        } catch (LinkageError e) {
            return Assumptions.abort(IMAGE_PROPERTY + "=" + image
                    + " requested but Testcontainers is not on the test classpath: " + e);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        requireStarted();
        if (server == null && context.getTestMethod()
                .map(method -> Arrays.stream(method.getParameters()).map(Parameter::getType)
                        .anyMatch(RedisServer.class::equals))
                .orElse(false)) {
            server(); // aborts: a RedisServer parameter cannot be resolved without a process
        }
        RedisServer process = server;
        if (process != null) {
            if (!process.isRunning()) {
                process.restart(); // a previous test killed it
            } else if (process.isPaused()) {
                process.resume();
            }
        }
        commands().flushall();
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (!context.getUniqueId().equals(ownerId)) {
            return; // a @Nested class ends; the enclosing class still needs Redis
        }
        try {
            extraFactories.forEach(LettuceSupport::destroyQuietly);
            if (sharedFactory != null) {
                LettuceSupport.destroyQuietly(sharedFactory);
            }
            if (commands != null) {
                commands.close();
            }
        } finally {
            try {
                if (server != null) {
                    server.close();
                }
                if (container != null) {
                    container.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException("cannot stop " + source, e);
            } finally {
                extraFactories.clear();
                sharedFactory = null;
                commands = null;
                server = null;
                container = null;
                uri = null;
                ownerId = null;
            }
        }
    }

    /**
     * Host of the Redis in use (also with {@code REDIS_URL} or a container), e.g. for
     * {@code @DynamicPropertySource}: {@code registry.add("spring.data.redis.host", redis::host)}.
     */
    public synchronized String host() {
        return requireStarted().getHost();
    }

    /** Port of the Redis in use (also with {@code REDIS_URL} or a container). */
    public synchronized int port() {
        return requireStarted().getPort();
    }

    /** The Redis in use as a URI ({@code redis://host:port}, or {@code REDIS_URL} as given). */
    public synchronized String uri() {
        RedisURI target = requireStarted();
        return server == null && container == null ? source.substring(REDIS_URL_ENV.length() + 1)
                : "redis://" + target.getHost() + ":" + target.getPort();
    }

    /** The factory shared by the test class (5 s command timeout); do not destroy it. */
    public synchronized RedisConnectionFactory connectionFactory() {
        return sharedFactory();
    }

    private LettuceConnectionFactory sharedFactory() {
        if (sharedFactory == null) {
            sharedFactory = newFactory(LettuceSupport.DEFAULT_TIMEOUT);
        }
        return sharedFactory;
    }

    /** An extra, independent client (a second "application instance"); destroyed after all tests if not before. */
    public LettuceConnectionFactory newConnectionFactory() {
        return newConnectionFactory(LettuceSupport.DEFAULT_TIMEOUT);
    }

    /** Like {@link #newConnectionFactory()} with a given command timeout. */
    public synchronized LettuceConnectionFactory newConnectionFactory(Duration commandTimeout) {
        LettuceConnectionFactory factory = newFactory(commandTimeout);
        extraFactories.add(factory);
        return factory;
    }

    private LettuceConnectionFactory newFactory(Duration commandTimeout) {
        RedisURI target = requireStarted();
        return LettuceSupport.startedFactory(LettuceConnectionFactory.createRedisConfiguration(target),
                LettuceSupport.clientConfiguration(target, commandTimeout));
    }

    /** Shared Lettuce sync commands for assertions (5 s timeout). */
    public synchronized RedisCommands<String, String> commands() {
        RedisURI target = requireStarted();
        if (commands == null) {
            commands = new LettuceSupport.Commands(target);
        }
        return commands.sync();
    }

    /**
     * The redis-server process, for fault control (kill, pause, restart).
     *
     * @throws TestAbortedException (the test is skipped) when running against {@code REDIS_URL} or a container
     */
    public synchronized RedisServer server() {
        requireStarted();
        if (server == null) {
            throw new TestAbortedException("fault control needs a redis-server process; this run uses " + source);
        }
        return server;
    }

    /** Resumes the redis-server process if a test paused it; nothing to do when running without a process. */
    public synchronized void resumeIfPaused() {
        if (server != null && server.isPaused()) {
            server.resume();
        }
    }

    /** {@code redis_version} of the server in use, e.g. {@code "6.2.6"}. */
    public synchronized String redisVersion() {
        requireStarted();
        return version;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RedisServer.class || type == RedisConnectionFactory.class
                || type == LettuceConnectionFactory.class || type == RedisCommands.class;
    }

    @Override
    public synchronized Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        if (type == RedisServer.class) {
            return server();
        }
        if (type == RedisCommands.class) {
            return commands();
        }
        return sharedFactory();
    }

    private synchronized RedisURI requireStarted() {
        if (uri == null) {
            throw new IllegalStateException("Redis is not started: register RedisServerExtension on a static field"
                    + " with @RegisterExtension (beforeAll starts it)");
        }
        return uri;
    }
}
