package io.github.relock.core.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/** Records what is published on a channel, with the time since it was made. */
public final class ChannelMonitor implements AutoCloseable {

    public final List<String> heard = new CopyOnWriteArrayList<>();
    private final RedisClient client;
    private final StatefulRedisPubSubConnection<String, String> connection;
    public final long start = System.nanoTime();

    public ChannelMonitor(String uri, String channel) {
        client = RedisClient.create(uri);
        connection = client.connectPubSub();
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String ch, String message) {
                heard.add(((System.nanoTime() - start) / 1_000_000) + "ms " + message);
            }
        });
        connection.sync().subscribe(channel);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }

    @Override
    public String toString() {
        return heard.toString();
    }
}
