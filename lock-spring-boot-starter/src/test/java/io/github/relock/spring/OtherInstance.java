package io.github.relock.spring;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Another application instance for a test class: a lock client on a connection factory of its own, made before
 * the class's first test and closed after its last; register it with a later {@code @Order} than the class's
 * {@link RedisServerExtension}.
 */
public final class OtherInstance implements BeforeAllCallback, AfterAllCallback {

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
