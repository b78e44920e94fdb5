package io.github.relock.core.internal.wait;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import io.github.relock.core.internal.redis.ClientScheduler;
import io.github.relock.core.internal.redis.RedisErrors;

/**
 * One client's release channels on a Redis Cluster: SSUBSCRIBE through Lettuce's cluster pub/sub connection,
 * which sends each channel to the node that owns its slot (the lock's, by its hash tag), where the release
 * scripts SPUBLISH; no other node hears of it. A server without sharded pub/sub (before Redis 7) answers the
 * first SSUBSCRIBE with an error, and the client then uses classic pub/sub ({@link PubSubConnection}) for good.
 *
 * <p>Lettuce (7.5) does not move a sharded subscription to a slot's new owner: after a slot migration the old
 * owner drops it (an SUNSUBSCRIBE nobody asked for), after a failover it dies with its node. So this class
 * keeps the node each channel was confirmed on and subscribes again wherever the slot's owner changed: on an
 * SUNSUBSCRIBE it did not send, on a topology change Lettuce reports, and on failed reconnects to a node it
 * listens on (after asking for the topology): see {@link ShardedResubscriber}. A channel subscribed again, here or by Lettuce after a
 * reconnect, may have missed releases meanwhile, so every waiter is woken to look again; a wake-up lost in
 * any other way costs a waiter no more than its lease timer.
 */
final class ShardedPubSubConnection implements ReleaseChannels {

    private static final Logger log = LoggerFactory.getLogger(ShardedPubSubConnection.class);

    /** Generations of the classic fallback start here, so a channel subscribed before the switch is subscribed again. */
    private static final long CLASSIC_GENERATIONS = 1L << 32;

    private final LettuceConnectionFactory factory;
    private final String anchorChannel;
    private final PubSubConnection.Events events;
    /** Guards {@link #openingNow} and the switch to classic; held for no call to Redis. */
    private final ReentrantLock opening = new ReentrantLock();
    private final OpeningUnderWay<Open> openingNow = new OpeningUnderWay<>(opening);
    /** Where the connection is opened, which waits for Redis. */
    private final Executor opener;
    /** Channels with local waiters, each with the id of the node that confirmed it ({@value ShardedResubscriber#UNCONFIRMED}: none yet). */
    private final Map<String, String> channels = new ConcurrentHashMap<>();
    private final ShardedResubscriber resubscriber;
    private final ShardedListener listener;
    /** Nodes that did not answer an SSUBSCRIBE (or the opening) a moment ago: many waiters, one try per node. */
    private final UnansweredLately unanswered = new UnansweredLately();
    private volatile @Nullable StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;
    private volatile @Nullable PubSubConnection classic;
    private volatile long generation;

    /** An open connection and which one it is (1 for the first). */
    private record Open(StatefulRedisClusterPubSubConnection<byte[], byte[]> pubSub, long generation) {
    }
    private volatile boolean closed;

    /**
     * @param scheduler the client's timer thread, where slot moves are followed; null: a thread of its own
     * @param opener    where the connection is opened: never a waiter's thread, nor one that timers or replies need
     */
    ShardedPubSubConnection(RedisConnectionFactory factory, String anchorChannel, PubSubConnection.Events events,
            @Nullable ClientScheduler scheduler, Executor opener) {
        this.factory = (LettuceConnectionFactory) factory;
        this.anchorChannel = anchorChannel;
        this.events = events;
        this.opener = opener;
        this.resubscriber = new ShardedResubscriber(scheduler != null ? scheduler
                : new ClientScheduler("relock-pubsub-" + anchorChannel), scheduler == null, channels, this::listening,
                this::client, events::mayHaveMissedReleases);
        this.listener = new ShardedListener(channels, events, resubscriber);
    }

    @Override
    public long current() {
        PubSubConnection fallback = classic;
        if (fallback != null) {
            long on = fallback.current();
            return on == 0 ? 0 : CLASSIC_GENERATIONS + on;
        }
        StatefulRedisClusterPubSubConnection<byte[], byte[]> alive = connection;
        return alive != null && alive.isOpen() ? generation : 0;
    }

    @Override
    public CompletableFuture<Long> subscribe(String channel) {
        PubSubConnection fallback = classic;
        if (fallback != null) {
            return fallback.subscribe(channel).thenApply(on -> CLASSIC_GENERATIONS + on);
        }
        return opened().thenCompose(open -> {
            String node;
            CompletableFuture<Void> sent;
            try {
                node = nodeOf(channel);
                unanswered.check(node, "subscribe to " + channel);
                // before it is sent: the confirmation must find it
                channels.putIfAbsent(channel, ShardedResubscriber.UNCONFIRMED);
                sent = ShardedCalls.ssubscribe(open.pubSub(), channel);
            }
            catch (RuntimeException ex) {
                channels.remove(channel);
                return CompletableFuture.failedFuture(ex);
            }
            return sent.handle((confirmed, failure) -> {
                if (failure == null) {
                    unanswered.answered(node);
                    return CompletableFuture.completedFuture(open.generation());
                }
                Throwable cause = PubSubReplies.cause(failure);
                channels.remove(channel);
                if (!RedisErrors.says(cause, "unknown command")) {
                    return CompletableFuture.<Long>failedFuture(cause instanceof DataAccessException ex
                            ? unanswered.note(node, ex) : cause);
                }
                // not on Lettuce's thread that answered: the switch closes the cluster connection
                return CompletableFuture.runAsync(() -> useClassic(cause), opener)
                        .thenCompose(unused -> subscribe(channel));
            }).thenCompose(next -> next);
        });
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        PubSubConnection fallback = classic;
        if (fallback != null) {
            return fallback.unsubscribe(channel);
        }
        channels.remove(channel); // first: the SUNSUBSCRIBE that answers this one is not a lost subscription
        StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
        if (closed || current == null) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            return ShardedCalls.sunsubscribe(current, channel).exceptionally(failure -> {
                // a dead node has no subscriptions left to undo
                log.debug("Could not unsubscribe from {}", channel, failure);
                return null;
            });
        }
        catch (RuntimeException ex) {
            log.debug("Could not unsubscribe from {}", channel, ex);
            return CompletableFuture.completedFuture(null);
        }
    }

    /** The open connection, or the one opening (on the opener) for every caller that needs it now. */
    private CompletableFuture<Open> opened() {
        StatefulRedisClusterPubSubConnection<byte[], byte[]> alive = connection;
        if (alive != null && alive.isOpen()) {
            return CompletableFuture.completedFuture(new Open(alive, generation));
        }
        CompletableFuture<Open> started = new CompletableFuture<>();
        opening.lock();
        try {
            CompletableFuture<Open> shared = openingNow.get();
            if (shared != null) {
                return shared;
            }
            if (closed) {
                return CompletableFuture.failedFuture(ReleaseChannels.closedException());
            }
            // one try per while: the callers of a moment later fail at once, not each after its own timeout
            unanswered.check(UnansweredLately.CONNECTION, "open the pub/sub connection");
            openingNow.start(started);
        }
        catch (DataAccessException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        finally {
            opening.unlock();
        }
        try {
            opener.execute(() -> {
                Open fresh = null;
                Throwable failure = null;
                try {
                    fresh = openNow();
                }
                catch (Throwable ex) {
                    failure = ex;
                }
                openingNow.ended();
                if (failure != null) {
                    started.completeExceptionally(failure);
                }
                else {
                    started.complete(fresh);
                }
            });
        }
        catch (RejectedExecutionException ex) {
            openingNow.ended();
            started.completeExceptionally(ReleaseChannels.closedException());
        }
        return started;
    }

    /** Opens the cluster pub/sub connection: waits for Redis, so only on the opener. */
    private Open openNow() {
        StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
        if (current != null && current.isOpen()) {
            return new Open(current, generation);
        }
        if (closed) {
            throw ReleaseChannels.closedException();
        }
        if (current != null) {
            ShardedCalls.closeQuietly(current);
        }
        RedisClusterClient client = client();
        StatefulRedisClusterPubSubConnection<byte[], byte[]> fresh;
        try {
            fresh = client.connectPubSub(ByteArrayCodec.INSTANCE);
        }
        catch (RuntimeException ex) {
            // in Spring's terms, as with classic pub/sub: Lettuce reports a failed connect as Redis not answering
            throw unanswered.note(UnansweredLately.CONNECTION,
                    RedisErrors.translate(ex, "open the pub/sub connection"));
        }
        unanswered.answered(UnansweredLately.CONNECTION);
        fresh.addListener(listener);
        resubscriber.follow(client);
        long opened = ++generation;
        connection = fresh;
        if (closed) {
            // close() came while this opened it and did not wait for it: the connection goes here
            connection = null;
            ShardedCalls.closeQuietly(fresh);
            throw ReleaseChannels.closedException();
        }
        if (current != null) {
            // the channels of the closed connection: on the new one, and their waiters look again
            channels.replaceAll((channel, node) -> ShardedResubscriber.UNCONFIRMED);
            resubscriber.resubscribe(false, 0);
        }
        return new Open(fresh, opened);
    }

    /** The id of the node that owns {@code channel}'s slot, as this client last saw the topology. */
    private String nodeOf(String channel) {
        RedisClusterNode owner = ShardedCalls.owner(client(), channel);
        return owner == null ? UnansweredLately.CONNECTION : owner.getNodeId();
    }

    RedisClusterClient client() {
        AbstractRedisClient client = factory.getRequiredNativeClient();
        if (!(client instanceof RedisClusterClient cluster)) {
            throw new IllegalStateException("A cluster-aware LettuceConnectionFactory gave no RedisClusterClient: " + client);
        }
        return cluster;
    }

    /** A server that does not know SSUBSCRIBE: classic pub/sub from now on, as its scripts then PUBLISH. */
    private void useClassic(Throwable why) {
        opening.lock();
        try {
            if (classic != null) {
                return;
            }
            log.info("Redis Cluster without sharded pub/sub ({}): lock releases are heard through classic pub/sub",
                    why.getMessage());
            StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
            connection = null;
            if (current != null) {
                ShardedCalls.closeQuietly(current);
            }
            channels.clear();
            PubSubConnection fallback = new PubSubConnection(factory, anchorChannel, events, opener);
            classic = fallback;
            if (closed) {
                fallback.close(); // close() did not wait for this switch: the fallback opens nothing
            }
        }
        finally {
            opening.unlock();
        }
    }

    /** The sharded connection channels are subscribed on; null once closed or classic. */
    private @Nullable StatefulRedisClusterPubSubConnection<byte[], byte[]> listening() {
        return closed || classic != null ? null : connection;
    }

    @Override
    public void close() {
        closed = true;
        openingNow.fail(ReleaseChannels.closedException()); // its callers hear of the close now
        resubscriber.close();
        // never waits for a thread that is opening the connection (see PubSubConnection.close())
        boolean locked = opening.tryLock();
        try {
            StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
            connection = null;
            if (current != null) {
                ShardedCalls.closeQuietly(current);
            }
            PubSubConnection fallback = classic;
            if (fallback != null) {
                fallback.close();
            }
        }
        finally {
            if (locked) {
                opening.unlock();
            }
        }
    }
}
