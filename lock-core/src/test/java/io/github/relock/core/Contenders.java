package io.github.relock.core;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.relock.test.RedisServerExtension;

/**
 * Clients that contend for locks in one test, each on its own connection factory (as separate processes
 * would be), and a pool for their threads; all closed after each test. Register it on an instance field
 * after the test's {@link RedisServerExtension}.
 */
public final class Contenders implements AfterEachCallback {

    private final RedisServerExtension redis;
    private final List<RedisLockClient> clients = new CopyOnWriteArrayList<>();
    private volatile ExecutorService pool = Executors.newCachedThreadPool();

    public Contenders(RedisServerExtension redis) {
        this.redis = redis;
    }

    /** A client with its own connections and the default settings. */
    public RedisLockClient newClient() {
        return newClient(UnaryOperator.identity());
    }

    /** A client with its own connections, built as {@code settings} says. */
    public RedisLockClient newClient(UnaryOperator<RedisLockClient.Builder> settings) {
        return add(settings.apply(RedisLockClient.builder(redis.newConnectionFactory())).build());
    }

    /** Closes {@code client} with the others after the test. */
    public RedisLockClient add(RedisLockClient client) {
        clients.add(client);
        return client;
    }

    public ExecutorService pool() {
        return pool;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        pool.shutdownNow();
        clients.forEach(RedisLockClient::close);
        clients.clear();
        pool = Executors.newCachedThreadPool();
    }
}
