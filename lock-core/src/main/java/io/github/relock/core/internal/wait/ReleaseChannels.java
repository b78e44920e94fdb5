package io.github.relock.core.internal.wait;

import java.util.concurrent.CompletableFuture;

/**
 * Where one client listens for releases: classic pub/sub ({@link PubSubConnection}) or, on a Redis Cluster,
 * sharded pub/sub ({@link ShardedPubSubConnection}). Either tells its {@link PubSubConnection.Events}. No call
 * waits for Redis: each returns a future that Redis's answer, or the connection's timeout, completes.
 */
interface ReleaseChannels {

    /**
     * The connection in use right now (1 for the first), 0 if there is none alive: a channel subscribed on
     * another one is no longer subscribed.
     */
    long current();

    /**
     * Subscribes {@code channel}, opening a connection first if needed.
     *
     * @return the generation it is subscribed on, once Redis confirmed it; fails with a
     *         {@link org.springframework.dao.DataAccessException} if Redis did not, with an
     *         {@link IllegalStateException} once closed
     */
    CompletableFuture<Long> subscribe(String channel);

    /** Unsubscribes {@code channel}; the future ends when Redis answered or could not, and never fails. */
    CompletableFuture<Void> unsubscribe(String channel);

    void close();

    /** What a wait's subscription fails with once the client is closed. */
    static IllegalStateException closedException() {
        return new IllegalStateException("The RedisLockClient was closed while this thread waited for a lock");
    }
}
