package io.github.relock.core.readwrite;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.relock.core.HeldLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServerExtension;

/**
 * What the tests of waiters that a read-write lock's release lets in share: their clients and their thread pool,
 * closed after each test (Redis resumed first if the test paused it), and how they read the lock's hash in Redis
 * (its key, the waiters' places, the field of a thread's hold). Registered as an instance field, so each test gets
 * its own.
 */
final class LetInClients implements AfterEachCallback {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

    private final RedisServerExtension redis;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final List<RedisLockClient> clients = new CopyOnWriteArrayList<>();

    LetInClients(RedisServerExtension redis) {
        this.redis = redis;
    }

    /** Threads for the test's readers and writers; stopped after the test. */
    ExecutorService pool() {
        return pool;
    }

    /** A client with id {@code id}, on a connection factory of its own with a 10 s command timeout. */
    RedisLockClient client(String id, Duration watchdogTimeout) {
        return add(builder(id, watchdogTimeout, COMMAND_TIMEOUT).build());
    }

    /** A client builder on a connection factory of its own, for a client that {@link #add} then closes. */
    RedisLockClient.Builder builder(String id, Duration watchdogTimeout, Duration commandTimeout) {
        return RedisLockClient.builder(redis.newConnectionFactory(commandTimeout)).clientId(id)
                .watchdogTimeout(watchdogTimeout);
    }

    /** Closes {@code client} after the test. */
    RedisLockClient add(RedisLockClient client) {
        clients.add(client);
        return client;
    }

    /** The hash of read-write lock {@code name} (the default key prefix, a name with no braces). */
    static String hash(String name) {
        return "lock:{" + name + "}:rw";
    }

    /** The hold field of the calling thread's hold of lock {@code name} in {@code client}; null if it has none. */
    static @Nullable String ownerOf(RedisLockClient client, String name) {
        String thread = Thread.currentThread().getName();
        for (HeldLock held : client.heldLocks()) {
            if (held.name().equals(name) && thread.equals(held.ownerThread())) {
                return held.ownerId();
            }
        }
        return null;
    }

    /**
     * Waits until {@code count} waiters of lock {@code name} have their places in Redis, then 200 ms more, for them
     * to be subscribed and asleep.
     *
     * @return the field of one of them (of the only one, if {@code count} is 1)
     */
    String waitForPlaces(String name, int count) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            List<String> places = redis.commands().hkeys(hash(name)).stream().filter(f -> f.endsWith(":i")).toList();
            if (places.size() == count) {
                Thread.sleep(200);
                return places.get(0).substring(0, places.get(0).length() - 2);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("not every waiter of " + name + " has its place: "
                + redis.commands().hkeys(hash(name)));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        redis.resumeIfPaused(); // a test that paused Redis: resumed before the clients close
        pool.shutdownNow();
        clients.forEach(RedisLockClient::close);
    }
}
