package io.github.relock.spring;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Another application instance for a test class: a lock client on a connection factory of its own, made before
 * the class's first test and closed after its last; register it with {@code @Order(AFTER_REDIS)}.
 */
public final class OtherInstance implements BeforeAllCallback, AfterAllCallback {

    /**
     * An {@code @Order} after every extension field without one, such as the class's {@link RedisServerExtension}:
     * the server is up before this client starts and still up when it closes.
     */
    public static final int AFTER_REDIS = Integer.MAX_VALUE;

    private final RedisServerExtension redis;
    private RedisLockClient client;

    public OtherInstance(RedisServerExtension redis) {
        this.redis = redis;
    }

    /** The other instance's lock of that name. */
    public ReentrantDistributedLock getLock(String name) {
        return client.getLock(name);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        client = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        client.close();
    }
}
