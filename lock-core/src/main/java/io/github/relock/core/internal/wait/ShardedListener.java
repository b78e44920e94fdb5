package io.github.relock.core.internal.wait;

import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;

/**
 * What Lettuce tells a client's sharded release channels ({@link ShardedPubSubConnection}), on its event
 * loop, so nothing here blocks: releases go to the waiters; a confirmation records the node a channel is
 * subscribed on; a subscription the node dropped (its slot moved) is made again where the slot went.
 */
final class ShardedListener extends RedisClusterPubSubAdapter<byte[], byte[]> {

    private static final Logger log = LoggerFactory.getLogger(ShardedListener.class);

    /** Channel to the id of the node that confirmed it, shared with the connection. */
    private final Map<String, String> channels;
    private final PubSubConnection.Events events;
    private final ShardedResubscriber resubscriber;

    ShardedListener(Map<String, String> channels, PubSubConnection.Events events, ShardedResubscriber resubscriber) {
        this.channels = channels;
        this.events = events;
        this.resubscriber = resubscriber;
    }

    @Override
    public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
        events.released(ShardedCalls.string(channel), ShardedCalls.string(message));
    }

    @Override
    public void ssubscribed(RedisClusterNode node, byte[] channel, long count) {
        String name = ShardedCalls.string(channel);
        String before = channels.get(name);
        String now = node == null ? ShardedResubscriber.UNCONFIRMED : node.getNodeId();
        // confirmed before: Lettuce subscribed it again after a reconnect, and releases may have gone unheard
        if (before != null && channels.replace(name, before, now) && !before.equals(ShardedResubscriber.UNCONFIRMED)) {
            log.debug("Release channel {} subscribed again after a reconnect; waking every waiter", name);
            events.mayHaveMissedReleases();
        }
    }

    @Override
    public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
        String name = ShardedCalls.string(channel);
        String before = channels.get(name);
        // still wanted: the node gave up the slot (a migration), so subscribe where it went
        if (before != null && channels.replace(name, before, ShardedResubscriber.UNCONFIRMED)) {
            resubscriber.resubscribe(true, 0);
        }
    }
}
