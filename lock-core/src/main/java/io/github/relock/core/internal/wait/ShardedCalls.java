package io.github.relock.core.internal.wait;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;

/** The replies and channel names of Lettuce's cluster pub/sub calls, in Spring's terms: sharded pub/sub's own. */
final class ShardedCalls {

    private static final Logger log = LoggerFactory.getLogger(ShardedCalls.class);

    private ShardedCalls() {
    }

    /** SSUBSCRIBE, sent to the node of the channel's slot: ends when confirmed, else fails within the timeout. */
    static CompletableFuture<Void> ssubscribe(StatefulRedisClusterPubSubConnection<byte[], byte[]> connection,
            String channel) {
        return PubSubReplies.within(connection.async().ssubscribe(bytes(channel)), connection.getTimeout(),
                "subscribe to " + channel);
    }

    static CompletableFuture<Void> sunsubscribe(StatefulRedisClusterPubSubConnection<byte[], byte[]> connection,
            String channel) {
        return PubSubReplies.within(connection.async().sunsubscribe(bytes(channel)), connection.getTimeout(),
                "unsubscribe from " + channel);
    }

    /** The node that owns {@code channel}'s slot, as {@code client} last saw the topology; null if none does. */
    static @Nullable RedisClusterNode owner(RedisClusterClient client, String channel) {
        return client.getPartitions().getPartitionBySlot(SlotHash.getSlot(bytes(channel)));
    }

    static void closeQuietly(StatefulRedisClusterPubSubConnection<byte[], byte[]> connection) {
        try {
            connection.close();
        }
        catch (RuntimeException ex) {
            log.debug("Could not close the pub/sub connection", ex);
        }
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
