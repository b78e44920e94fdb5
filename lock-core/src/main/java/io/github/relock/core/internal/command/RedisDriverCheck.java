package io.github.relock.core.internal.command;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

import io.github.relock.core.UnsupportedRedisDriverException;

/**
 * Refuses a driver that relock cannot wait on, before anything connects. Compares class names only: no
 * Lettuce or Jedis class is loaded here, so the check works (and says what to do) when either is absent.
 */
public final class RedisDriverCheck {

    private static final String JEDIS_PACKAGE = "org.springframework.data.redis.connection.jedis.";
    private static final String LETTUCE_CLIENT = "io.lettuce.core.RedisClient";
    private static final String LETTUCE_PACKAGE = "org.springframework.data.redis.connection.lettuce.";

    private RedisDriverCheck() {
    }

    /**
     * Refuses Jedis's factory, or any factory when Lettuce is not on the class path. A wrapping factory (neither
     * Lettuce's nor Jedis's) says nothing by its class: {@link #requireLettuceInside} asks its first connection.
     *
     * @throws UnsupportedRedisDriverException if the driver is not Lettuce
     */
    public static void requireLettuce(RedisConnectionFactory factory) {
        boolean lettucePresent = ClassUtils.isPresent(LETTUCE_CLIENT, RedisDriverCheck.class.getClassLoader());
        if (isJedis(factory.getClass()) || !lettucePresent) {
            throw refused(factory.getClass().getName(), lettucePresent);
        }
    }

    /**
     * Refuses a wrapping factory whose connection is not Lettuce's underneath. A connection that cannot reach
     * Redis yet throws its own exception here (the caller defers the question to the first wait).
     *
     * @throws UnsupportedRedisDriverException if the driver is not Lettuce
     */
    static void requireLettuceInside(RedisConnectionFactory factory, RedisConnection connection) {
        if (isA(factory.getClass(), LETTUCE_PACKAGE)) {
            return; // Lettuce's own factory: its connections are Lettuce's
        }
        if (!isLettuceInside(connection)) {
            throw refused(factory.getClass().getName() + " (whose connections are "
                    + connection.getNativeConnection().getClass().getName() + ")", true);
        }
    }

    /**
     * Refuses an open connection that is not Lettuce's underneath, however the factory wraps or proxies it.
     *
     * @throws UnsupportedRedisDriverException if it is not; the connection is left open for the caller to close
     */
    public static void requireLettuce(RedisConnection connection) {
        if (!isLettuceInside(connection)) {
            throw refused(connection.getClass().getName(), true);
        }
    }

    private static boolean isLettuceInside(RedisConnection connection) {
        return !isJedis(connection.getClass()) && isLettuce(connection.getNativeConnection());
    }

    /** Whether the factory is Lettuce's own, or a subclass (class names only: Lettuce may be absent). */
    static boolean isLettuceFactory(RedisConnectionFactory factory) {
        return isA(factory.getClass(), LETTUCE_PACKAGE);
    }

    /** Whether {@code type} or one of its superclasses is a spring-data-redis Jedis class. */
    static boolean isJedis(Class<?> type) {
        return isA(type, JEDIS_PACKAGE);
    }

    private static boolean isA(Class<?> type, String packagePrefix) {
        for (Class<?> current = type; current != null; current = current.getSuperclass()) {
            if (current.getName().startsWith(packagePrefix)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a connection's native connection is Lettuce's (class names only: Lettuce may be absent). */
    static boolean isLettuce(Object nativeConnection) {
        if (isA(nativeConnection.getClass(), "io.lettuce.")) {
            return true;
        }
        for (Class<?> type : nativeConnection.getClass().getInterfaces()) {
            if (type.getName().startsWith("io.lettuce.")) {
                return true; // Lettuce hands out its commands as a JDK proxy
            }
        }
        return false;
    }

    static UnsupportedRedisDriverException refused(String className, boolean lettucePresent) {
        String fix = lettucePresent ? "build it over a LettuceConnectionFactory instead (with Spring Boot: "
                + "spring.data.redis.client-type=lettuce, or exclude redis.clients:jedis)"
                : "add io.lettuce:lettuce-core to the class path and build it over a LettuceConnectionFactory "
                        + "(with Spring Boot: spring-boot-starter-data-redis brings Lettuce; remove redis.clients:jedis "
                        + "or set spring.data.redis.client-type=lettuce)";
        return new UnsupportedRedisDriverException(className, lettucePresent, "relock needs the Lettuce driver, but "
                + "the RedisLockClient runs on " + className + (lettucePresent ? "" : " and lettuce-core is not on "
                + "the class path") + ": waiting for a lock relies on Lettuce's pub/sub (subscriptions confirmed, "
                + "re-subscribed after a reconnect), while Jedis blocks a thread and a connection per subscription. "
                + "To use relock, " + fix + ".");
    }
}
