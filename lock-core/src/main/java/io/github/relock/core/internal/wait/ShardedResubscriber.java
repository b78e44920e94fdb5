package io.github.relock.core.internal.wait;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import reactor.core.Disposable;

import io.github.relock.core.internal.redis.ClientScheduler;

/**
 * Follows the slots of a client's sharded release channels ({@link ShardedPubSubConnection}), since Lettuce
 * (7.5) moves no sharded subscription: subscribes each channel again on its slot's owner when the node that
 * confirmed it no longer owns the slot, then wakes every waiter, which may have missed a release meanwhile.
 * It looks on request (an SUNSUBSCRIBE nobody asked for, a new connection), on a topology change Lettuce
 * reports, and on failed reconnects to a node a channel was confirmed on (after asking for the topology).
 * It runs on the client's scheduler and waits for no reply there.
 */
final class ShardedResubscriber {

    private static final Logger log = LoggerFactory.getLogger(ShardedResubscriber.class);
    /** A channel's node while no node has confirmed its subscription yet. */
    static final String UNCONFIRMED = "";

    /** Failed reconnects come many a second: this is the most often they make it ask for the topology. */
    private static final long RECONNECT_RESYNC_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A channel that could not be subscribed again is tried again after this. */
    private static final long RETRY_MILLIS = 500;
    /** A backstop beyond the connection's own command timeout, for clients that turned Lettuce's timeouts off. */
    private static final long BACKSTOP_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Channel to the id of the node that confirmed it, shared with the connection. */
    private final Map<String, String> channels;
    private final Supplier<@Nullable StatefulRedisClusterPubSubConnection<byte[], byte[]>> listening;
    private final Supplier<RedisClusterClient> client;
    private final Runnable wakeEveryWaiter;
    /** Where the looks run and their replies are handled; nothing run there waits for Redis. */
    private final ClientScheduler scheduler;
    /** Whether {@link #scheduler} is this one's own, closed with it. */
    private final boolean ownScheduler;
    private final AtomicBoolean resyncQueued = new AtomicBoolean();
    private volatile long lastReconnectResync = System.nanoTime() - RECONNECT_RESYNC_PAUSE_NANOS;
    private volatile @Nullable Disposable clusterEvents;
    private volatile boolean closed;

    /**
     * @param listening the connection the channels are subscribed on; null once there is none to follow
     */
    ShardedResubscriber(ClientScheduler scheduler, boolean ownScheduler, Map<String, String> channels,
            Supplier<@Nullable StatefulRedisClusterPubSubConnection<byte[], byte[]>> listening,
            Supplier<RedisClusterClient> client, Runnable wakeEveryWaiter) {
        this.scheduler = scheduler;
        this.ownScheduler = ownScheduler;
        this.channels = channels;
        this.listening = listening;
        this.client = client;
        this.wakeEveryWaiter = wakeEveryWaiter;
    }

    /** Listens to {@code cluster}'s topology and connection events, once. */
    void follow(RedisClusterClient cluster) {
        if (clusterEvents == null) {
            clusterEvents = cluster.getResources().eventBus().get().subscribe(this::onEvent);
        }
    }

    private void onEvent(Event event) {
        if (closed || channels.isEmpty()) {
            return;
        }
        if (event instanceof ClusterTopologyChangedEvent) {
            resubscribe(false, 0);
        }
        else if (event instanceof ReconnectFailedEvent failed && listensOn(failed.remoteAddress())) {
            // a failover without a topology refresh of its own: ask for the topology, at most once a second
            long now = System.nanoTime();
            if (now - lastReconnectResync >= RECONNECT_RESYNC_PAUSE_NANOS) {
                lastReconnectResync = now;
                resubscribe(true, 0);
            }
        }
    }

    /** Whether a channel with waiters was confirmed on the node at {@code address}. */
    private boolean listensOn(@Nullable SocketAddress address) {
        if (!(address instanceof InetSocketAddress socket)) {
            return false;
        }
        try {
            for (String node : channels.values()) {
                RedisClusterNode known = node.isEmpty() ? null : client.get().getPartitions().getPartitionByNodeId(node);
                RedisURI uri = known == null ? null : known.getUri();
                if (uri != null && uri.getPort() == socket.getPort() && uri.getHost().equals(socket.getHostString())) {
                    return true;
                }
            }
        }
        catch (RuntimeException ex) {
            log.debug("Could not match a failed reconnect to a node", ex);
        }
        return false;
    }

    /** Looks soon (one look queued at a time): every channel whose slot moved is subscribed again. */
    void resubscribe(boolean refreshTopology, long delayMillis) {
        if (closed || !resyncQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            scheduler.schedule(() -> resync(refreshTopology), TimeUnit.MILLISECONDS.toNanos(delayMillis));
        }
        catch (RuntimeException ex) {
            resyncQueued.set(false); // closed meanwhile
        }
    }

    /**
     * Subscribes again every channel whose slot is no longer owned by the node that confirmed it, then wakes
     * every waiter: a release announced while it was not subscribed reached nobody. Runs on the scheduler and
     * waits for nothing: the topology and the SSUBSCRIBEs complete futures, each bounded by the connection's
     * command timeout, and what comes of them is handled on the scheduler again.
     */
    private void resync(boolean refreshTopology) {
        resyncQueued.set(false);
        StatefulRedisClusterPubSubConnection<byte[], byte[]> current = listening.get();
        if (closed || current == null) {
            return;
        }
        try {
            if (!refreshTopology) {
                subscribeMoved(current);
                return;
            }
            within(client.get().refreshPartitionsAsync().toCompletableFuture(), current.getTimeout())
                    .whenComplete((refreshed, failure) -> {
                        if (failure != null) {
                            retry("Could not ask for the topology; retrying", failure);
                        }
                        else {
                            onScheduler(() -> subscribeMoved(current));
                        }
                    });
        }
        catch (RuntimeException ex) {
            retry("Could not follow a topology change; retrying", ex);
        }
    }

    private void subscribeMoved(StatefulRedisClusterPubSubConnection<byte[], byte[]> current) {
        if (closed) {
            return;
        }
        try {
            RedisClusterClient cluster = client.get();
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (Map.Entry<String, String> entry : channels.entrySet()) {
                String channel = entry.getKey();
                RedisClusterNode owner = ShardedCalls.owner(cluster, channel);
                if (owner != null && owner.getNodeId().equals(entry.getValue())) {
                    continue;
                }
                if (!channels.replace(channel, entry.getValue(), UNCONFIRMED)) {
                    continue; // unsubscribed, or confirmed, meanwhile
                }
                sent.add(within(current.async().ssubscribe(ShardedCalls.bytes(channel)).toCompletableFuture(),
                        current.getTimeout()).thenApply(reply -> null));
            }
            if (sent.isEmpty()) {
                return;
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).whenComplete((done, failure) -> {
                log.debug("Release channels subscribed again on their slots' owners; waking every waiter");
                onScheduler(wakeEveryWaiter);
                if (failure != null) {
                    retry("Could not subscribe to a channel again; retrying", failure);
                }
            });
        }
        catch (RuntimeException ex) {
            // nothing moved yet: the waiters keep their subscriptions, and their lease timers
            retry("Could not follow a topology change; retrying", ex);
        }
    }

    private void retry(String why, Throwable failure) {
        log.debug(why, failure);
        resubscribe(true, RETRY_MILLIS);
    }

    /** Runs {@code task} on the scheduler (a future completes on Lettuce's event loop, where nothing may wait). */
    private void onScheduler(Runnable task) {
        try {
            scheduler.execute(task);
        }
        catch (RejectedExecutionException closing) {
            // the client is closing: nothing more is followed
        }
    }

    /**
     * {@code reply}, failed with a timeout once Lettuce's own command timeout (and a little more) has passed,
     * by a timer on the scheduler: a node that does not answer ties up no thread.
     */
    private <T> CompletableFuture<T> within(CompletableFuture<T> reply, Duration timeout) {
        if (!reply.isDone()) {
            try {
                ScheduledFuture<?> timer = scheduler.schedule(() -> reply.completeExceptionally(new TimeoutException(
                        "Redis did not answer within " + timeout.toMillis() + " ms")),
                        timeout.toNanos() + BACKSTOP_NANOS);
                reply.whenComplete((value, failure) -> timer.cancel(false));
            }
            catch (RejectedExecutionException closing) {
                reply.completeExceptionally(new IllegalStateException("The client is closed", closing));
            }
        }
        return reply;
    }

    void close() {
        closed = true;
        if (ownScheduler) {
            scheduler.close();
        }
        Disposable events = clusterEvents;
        if (events != null) {
            events.dispose();
        }
    }
}
