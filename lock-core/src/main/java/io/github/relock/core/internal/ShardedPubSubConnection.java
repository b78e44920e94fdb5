package io.github.relock.core.internal;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import reactor.core.Disposable;

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
 * listens on (after asking for the topology). A channel subscribed again, here or by Lettuce after a
 * reconnect, may have missed releases meanwhile, so every waiter is woken to look again; a wake-up lost in
 * any other way costs a waiter no more than its lease timer.
 */
final class ShardedPubSubConnection implements ReleaseChannels {

    private static final Logger log = LoggerFactory.getLogger(ShardedPubSubConnection.class);

    /** Generations of the classic fallback start here, so a channel subscribed before the switch is subscribed again. */
    private static final long CLASSIC_GENERATIONS = 1L << 32;
    /** Failed reconnects come many a second: this is the most often they make it ask for the topology. */
    private static final long RECONNECT_RESYNC_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A channel that could not be subscribed again is tried again after this. */
    private static final long RETRY_MILLIS = 500;
    private static final String UNCONFIRMED = "";

    private final LettuceConnectionFactory factory;
    private final String anchorChannel;
    private final PubSubConnection.Events events;
    /** Guards opening and the switch to classic, which talk to Redis: not a monitor, so virtual threads do not pin. */
    private final ReentrantLock opening = new ReentrantLock();
    /** Channels with local waiters, each with the id of the node that confirmed it ({@value #UNCONFIRMED}: none yet). */
    private final Map<String, String> channels = new ConcurrentHashMap<>();
    private final Listener listener = new Listener();
    private final ScheduledThreadPoolExecutor resyncs;
    private final AtomicBoolean resyncQueued = new AtomicBoolean();
    private volatile long lastReconnectResync = System.nanoTime() - RECONNECT_RESYNC_PAUSE_NANOS;
    private volatile @Nullable StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;
    private volatile @Nullable Disposable clusterEvents;
    private volatile @Nullable PubSubConnection classic;
    private volatile long generation;
    private volatile boolean closed;

    ShardedPubSubConnection(RedisConnectionFactory factory, String anchorChannel, PubSubConnection.Events events) {
        this.factory = (LettuceConnectionFactory) factory;
        this.anchorChannel = anchorChannel;
        this.events = events;
        this.resyncs = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "relock-pubsub-" + anchorChannel);
            thread.setDaemon(true);
            return thread;
        });
        resyncs.setKeepAliveTime(10, TimeUnit.SECONDS); // no idle thread per client between topology changes
        resyncs.allowCoreThreadTimeOut(true);
    }

    /** Whether {@code factory} gives Lettuce cluster connections: then releases are announced with SPUBLISH. */
    static boolean isCluster(RedisConnectionFactory factory) {
        return factory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
    }

    @Override
    public long open() {
        PubSubConnection fallback = classic;
        if (fallback != null) {
            return CLASSIC_GENERATIONS + fallback.open();
        }
        Interrupts.uninterruptibly(this::connection);
        PubSubConnection switched = classic;
        return switched != null ? CLASSIC_GENERATIONS + switched.open() : generation;
    }

    @Override
    public long subscribe(String channel) {
        PubSubConnection fallback = classic;
        if (fallback != null) {
            return CLASSIC_GENERATIONS + fallback.subscribe(channel);
        }
        StatefulRedisClusterPubSubConnection<byte[], byte[]> current = Interrupts.uninterruptibly(this::connection);
        long on = generation;
        channels.putIfAbsent(channel, UNCONFIRMED); // before it is sent: the confirmation must find it
        try {
            Interrupts.uninterruptibly(() -> await(current.async().ssubscribe(bytes(channel)), current.getTimeout(),
                    "subscribe to " + channel));
        }
        catch (RuntimeException ex) {
            channels.remove(channel);
            if (!unknownCommand(ex)) {
                throw ex;
            }
            useClassic(ex);
            return subscribe(channel);
        }
        return on;
    }

    @Override
    public void unsubscribe(String channel) {
        PubSubConnection fallback = classic;
        if (fallback != null) {
            fallback.unsubscribe(channel);
            return;
        }
        channels.remove(channel); // first: the SUNSUBSCRIBE that answers this one is not a lost subscription
        StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
        if (closed || current == null) {
            return;
        }
        try {
            Interrupts.uninterruptibly(() -> await(current.async().sunsubscribe(bytes(channel)), current.getTimeout(),
                    "unsubscribe from " + channel));
        }
        catch (RuntimeException ex) {
            // a dead node has no subscriptions left to undo
            log.debug("Could not unsubscribe from {}", channel, ex);
        }
    }

    private StatefulRedisClusterPubSubConnection<byte[], byte[]> connection() {
        StatefulRedisClusterPubSubConnection<byte[], byte[]> alive = connection;
        if (alive != null && alive.isOpen()) {
            return alive;
        }
        opening.lock();
        try {
            StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
            if (current != null && current.isOpen()) {
                return current;
            }
            if (closed) {
                throw new IllegalStateException("The RedisLockClient was closed while this thread waited for a lock");
            }
            if (current != null) {
                closeQuietly(current);
            }
            RedisClusterClient client = client();
            StatefulRedisClusterPubSubConnection<byte[], byte[]> fresh;
            try {
                fresh = client.connectPubSub(ByteArrayCodec.INSTANCE);
            }
            catch (RuntimeException ex) {
                // callers treat Spring's exceptions as Redis not answering, as with classic pub/sub
                throw new RedisConnectionFailureException("Could not open the pub/sub connection: " + ex.getMessage(),
                        ex);
            }
            fresh.addListener(listener);
            if (clusterEvents == null) {
                clusterEvents = client.getResources().eventBus().get().subscribe(this::onEvent);
            }
            generation++;
            connection = fresh;
            if (current != null) {
                // the channels of the closed connection: on the new one, and their waiters look again
                channels.replaceAll((channel, node) -> UNCONFIRMED);
                queueResync(false, 0);
            }
            return fresh;
        }
        finally {
            opening.unlock();
        }
    }

    private RedisClusterClient client() {
        AbstractRedisClient client = factory.getRequiredNativeClient();
        if (!(client instanceof RedisClusterClient cluster)) {
            throw new IllegalStateException("A cluster-aware LettuceConnectionFactory gave no RedisClusterClient: " + client);
        }
        return cluster;
    }

    /** A server that does not know SSUBSCRIBE: classic pub/sub from now on, as its scripts then PUBLISH. */
    private void useClassic(RuntimeException why) {
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
                closeQuietly(current);
            }
            channels.clear();
            classic = new PubSubConnection(factory, anchorChannel, events);
        }
        finally {
            opening.unlock();
        }
    }

    private void onEvent(Event event) {
        if (closed || channels.isEmpty()) {
            return;
        }
        if (event instanceof ClusterTopologyChangedEvent) {
            queueResync(false, 0);
        }
        else if (event instanceof ReconnectFailedEvent failed && listensOn(failed.remoteAddress())) {
            // a failover without a topology refresh of its own: ask for the topology, at most once a second
            long now = System.nanoTime();
            if (now - lastReconnectResync >= RECONNECT_RESYNC_PAUSE_NANOS) {
                lastReconnectResync = now;
                queueResync(true, 0);
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
                RedisClusterNode known = node.isEmpty() ? null : client().getPartitions().getPartitionByNodeId(node);
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

    private void queueResync(boolean refreshTopology, long delayMillis) {
        if (closed || !resyncQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            resyncs.schedule(() -> resync(refreshTopology), delayMillis, TimeUnit.MILLISECONDS);
        }
        catch (RuntimeException ex) {
            resyncQueued.set(false); // closed meanwhile
        }
    }

    /**
     * Subscribes again every channel whose slot is no longer owned by the node that confirmed it, then wakes
     * every waiter: a release announced while it was not subscribed reached nobody.
     */
    private void resync(boolean refreshTopology) {
        resyncQueued.set(false);
        StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
        if (closed || classic != null || current == null) {
            return;
        }
        try {
            RedisClusterClient client = client();
            if (refreshTopology) {
                client.refreshPartitions();
            }
            boolean moved = false;
            boolean failed = false;
            for (Map.Entry<String, String> entry : channels.entrySet()) {
                String channel = entry.getKey();
                RedisClusterNode owner = client.getPartitions().getPartitionBySlot(SlotHash.getSlot(bytes(channel)));
                if (owner != null && owner.getNodeId().equals(entry.getValue())) {
                    continue;
                }
                if (!channels.replace(channel, entry.getValue(), UNCONFIRMED)) {
                    continue; // unsubscribed, or confirmed, meanwhile
                }
                moved = true;
                try {
                    await(current.async().ssubscribe(bytes(channel)), current.getTimeout(), "subscribe to " + channel);
                }
                catch (RuntimeException ex) {
                    failed = true;
                    log.debug("Could not subscribe to {} again; retrying", channel, ex);
                }
            }
            if (moved) {
                log.debug("Release channels subscribed again on their slots' owners; waking every waiter");
                events.mayHaveMissedReleases();
            }
            if (failed) {
                queueResync(true, RETRY_MILLIS);
            }
        }
        catch (RuntimeException ex) {
            // nothing moved yet: the waiters keep their subscriptions, and their lease timers
            log.debug("Could not follow a topology change; retrying", ex);
            queueResync(true, RETRY_MILLIS);
        }
    }

    @Override
    public void close() {
        closed = true;
        resyncs.shutdownNow();
        Disposable events = clusterEvents;
        if (events != null) {
            events.dispose();
        }
        opening.lock();
        try {
            StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
            connection = null;
            if (current != null) {
                closeQuietly(current);
            }
            PubSubConnection fallback = classic;
            if (fallback != null) {
                fallback.close();
            }
        }
        finally {
            opening.unlock();
        }
    }

    /** Messages and confirmations, on Lettuce's event loop: nothing here may block. */
    private final class Listener extends RedisClusterPubSubAdapter<byte[], byte[]> {

        @Override
        public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
            events.released(string(channel), string(message));
        }

        @Override
        public void ssubscribed(RedisClusterNode node, byte[] channel, long count) {
            String name = string(channel);
            String before = channels.get(name);
            String now = node == null ? UNCONFIRMED : node.getNodeId();
            // confirmed before: Lettuce subscribed it again after a reconnect, and releases may have gone unheard
            if (before != null && channels.replace(name, before, now) && !before.equals(UNCONFIRMED)) {
                log.debug("Release channel {} subscribed again after a reconnect; waking every waiter", name);
                events.mayHaveMissedReleases();
            }
        }

        @Override
        public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
            String name = string(channel);
            String before = channels.get(name);
            // still wanted: the node gave up the slot (a migration), so subscribe where it went
            if (before != null && channels.replace(name, before, UNCONFIRMED)) {
                queueResync(true, 0);
            }
        }
    }

    private static <T> T await(Future<T> reply, Duration timeout, String what) {
        try {
            return reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new RedisSystemException("Interrupted while waiting to " + what, ex);
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() == null ? ex : ex.getCause();
            throw new RedisSystemException("Could not " + what + ": " + cause.getMessage(), cause);
        }
        catch (TimeoutException ex) {
            throw new RedisSystemException("Redis did not confirm in " + timeout.toMillis() + " ms: " + what, ex);
        }
    }

    private static boolean unknownCommand(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.contains("unknown command")) {
                return true;
            }
        }
        return false;
    }

    private static void closeQuietly(StatefulRedisClusterPubSubConnection<byte[], byte[]> connection) {
        try {
            connection.close();
        }
        catch (RuntimeException ex) {
            log.debug("Could not close the pub/sub connection", ex);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
