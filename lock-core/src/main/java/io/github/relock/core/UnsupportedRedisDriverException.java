package io.github.relock.core;

/**
 * The connection factory given to {@link RedisLockClient#builder} is not one relock can wait on: relock's
 * waiters need Lettuce (subscriptions confirmed by the server, re-subscribed after a reconnect, one shared
 * connection for every channel). Jedis blocks a thread and a connection per subscription and confirms
 * nothing, so a client over it would hang or miss releases; it is refused when the client is built.
 */
public class UnsupportedRedisDriverException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String factoryClassName;
    private final boolean lettucePresent;

    public UnsupportedRedisDriverException(String factoryClassName, boolean lettucePresent, String message) {
        super(message);
        this.factoryClassName = factoryClassName;
        this.lettucePresent = lettucePresent;
    }

    /** The class of the refused connection factory (or of its connection). */
    public String getFactoryClassName() {
        return factoryClassName;
    }

    /** Whether {@code io.lettuce:lettuce-core} is on relock's class path, so that only the factory must change. */
    public boolean isLettucePresent() {
        return lettucePresent;
    }
}
