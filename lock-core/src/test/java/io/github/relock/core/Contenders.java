package io.github.relock.core;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.test.RedisServerExtension;

/**
 * Clients that contend for locks in one test, each on its own connection factory (as separate processes
 * would be) unless made {@link #onTheSharedFactory on the shared one}, and a pool for their threads; all closed
 * after each test. Register it on an instance field after the test's {@link RedisServerExtension}.
 */
public final class Contenders implements AfterEachCallback {

    /** Where each new client's connections come from. */
    private final Supplier<RedisConnectionFactory> factories;
    private final List<RedisLockClient> clients = new CopyOnWriteArrayList<>();
    private volatile ExecutorService pool = Executors.newCachedThreadPool();

    public Contenders(RedisServerExtension redis) {
        this(redis::newConnectionFactory);
    }

    private Contenders(Supplier<RedisConnectionFactory> factories) {
        this.factories = factories;
    }

    /** Contenders that all share the class's connection factory, as threads of one process would. */
    public static Contenders onTheSharedFactory(RedisServerExtension redis) {
        return new Contenders(redis::connectionFactory);
    }

    /** A client with the default settings. */
    public RedisLockClient newClient() {
        return newClient(UnaryOperator.identity());
    }

    /** A client built as {@code settings} says. */
    public RedisLockClient newClient(UnaryOperator<RedisLockClient.Builder> settings) {
        return add(settings.apply(RedisLockClient.builder(factories.get())).build());
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
