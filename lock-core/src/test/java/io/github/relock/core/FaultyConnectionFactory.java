package io.github.relock.core;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.PoolException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.lettuce.core.RedisConnectionException;

/**
 * A real connection factory that can be told to fail for a while the way a connection pool fails: with Spring's
 * {@link PoolException}, which is not a {@link DataAccessException}. A connection handed out before fails its
 * commands meanwhile, as one whose server went away does (a client that keeps its connection then asks the
 * factory for another, which fails as above).
 */
final class FaultyConnectionFactory extends DelegatingConnectionFactory {

    private volatile long failingUntilNanos;

    FaultyConnectionFactory(RedisConnectionFactory delegate) {
        super(delegate);
    }

    /** Every {@link #getConnection()} from now on throws, for {@code duration}. */
    void failFor(Duration duration) {
        failingUntilNanos = System.nanoTime() + duration.toNanos();
    }

    private void maybeFail() {
        if (failing()) {
            throw new PoolException("Could not get a resource from the pool (injected)");
        }
    }

    private boolean failing() {
        return System.nanoTime() - failingUntilNanos < 0;
    }

    @Override
    public RedisConnection getConnection() {
        maybeFail();
        RedisConnection connection = super.getConnection();
        return (RedisConnection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {RedisConnection.class},
                (proxy, method, args) -> {
                    Object result = invoke(connection, method, args);
                    return method.getName().equals("getNativeConnection") && result != null ? failingWhileFailing(result)
                            : result;
                });
    }

    /** {@code commands} (Lettuce's, a JDK proxy of its interfaces), each failing as a lost connection while failing. */
    private Object failingWhileFailing(Object commands) {
        Set<Class<?>> interfaces = new LinkedHashSet<>();
        for (Class<?> type = commands.getClass(); type != null; type = type.getSuperclass()) {
            interfaces.addAll(List.of(type.getInterfaces()));
        }
        return Proxy.newProxyInstance(getClass().getClassLoader(), interfaces.toArray(Class<?>[]::new),
                (proxy, method, args) -> {
                    if (failing() && method.getDeclaringClass() != Object.class) {
                        throw new RedisConnectionException("Connection to Redis lost (injected)");
                    }
                    return invoke(commands, method, args);
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        }
        catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    @Override
    public RedisClusterConnection getClusterConnection() {
        maybeFail();
        return super.getClusterConnection();
    }
}
