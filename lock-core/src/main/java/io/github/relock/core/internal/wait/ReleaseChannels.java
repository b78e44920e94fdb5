package io.github.relock.core.internal.wait;

/**
 * Where one client listens for releases: classic pub/sub ({@link PubSubConnection}) or, on a Redis Cluster,
 * sharded pub/sub ({@link ShardedPubSubConnection}). Either tells its {@link PubSubConnection.Events}.
 */
interface ReleaseChannels {

    /**
     * Opens the connection if there is none and says which one is in use (1 for the first): a channel
     * subscribed on another one is no longer subscribed.
     */
    long open();

    /**
     * Subscribes {@code channel}, opening a connection if needed.
     *
     * @return the generation it is subscribed on
     * @throws org.springframework.dao.DataAccessException if Redis did not confirm it
     */
    long subscribe(String channel);

    void unsubscribe(String channel);

    void close();
}
