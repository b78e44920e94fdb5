package io.github.relock.core.testing;

import java.util.function.Supplier;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServerExtension;

/**
 * Two lock clients made fresh for each test and closed after it, on the calling thread with its interrupt
 * status cleared first; register it after the class's {@link RedisServerExtension} so that it flushes first.
 */
public final class TwoClients implements BeforeEachCallback, AfterEachCallback {

    private final Supplier<RedisLockClient> makeFirst;
    private final Supplier<RedisLockClient> makeSecond;
    private RedisLockClient first;
    private RedisLockClient second;

    public TwoClients(Supplier<RedisLockClient> makeFirst, Supplier<RedisLockClient> makeSecond) {
        this.makeFirst = makeFirst;
        this.makeSecond = makeSecond;
    }

    /** Two clients with default settings, both on the class's shared connection factory. */
    public static TwoClients onTheSharedFactory(RedisServerExtension redis) {
        return new TwoClients(() -> RedisLockClient.builder(redis.connectionFactory()).build(),
                () -> RedisLockClient.builder(redis.connectionFactory()).build());
    }

    public RedisLockClient first() {
        return first;
    }

    public RedisLockClient second() {
        return second;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        first = makeFirst.get();
        second = makeSecond.get();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Thread.interrupted();
        first.close();
        second.close();
    }
}
