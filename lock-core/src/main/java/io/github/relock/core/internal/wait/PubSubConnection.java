package io.github.relock.core.internal.wait;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;

import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;

import io.github.relock.core.UnsupportedRedisDriverException;
import io.github.relock.core.internal.command.RedisDriverCheck;
import io.github.relock.core.internal.redis.RedisErrors;

/**
 * One client's pub/sub connection. An idle anchor channel keeps it subscribed between waits, so a wait
 * does not pay for a new connection, and tells when it came back: Lettuce re-subscribes every channel
 * after a reconnect, and a second confirmation of the anchor means releases announced meanwhile may have
 * been missed. Channels are subscribed and unsubscribed through Lettuce's asynchronous pub/sub commands, so no
 * thread waits for Redis's confirmation; opening the connection (Spring's blocking subscribe of the anchor) runs
 * once for all callers that need it meanwhile, on the opener given.
 */
final class PubSubConnection implements ReleaseChannels, MessageListener, SubscriptionListener {

    private static final Logger log = LoggerFactory.getLogger(PubSubConnection.class);

    /** What the connection tells the waiters. */
    interface Events {

        /** A release was announced on {@code channel}; {@code message} may name who should go next. */
        void released(String channel, String message);

        /** Releases may have been missed (a reconnect, a new connection): every waiter should look again. */
        void mayHaveMissedReleases();

        /** Redis confirmed a subscription to {@code channel}, maybe one asked for long ago (see its use). */
        default void subscribed(String channel) {
        }
    }

    /** An open connection, the Lettuce connection its subscriptions are on, and which one it is (1 for the first). */
    private record Live(RedisConnection connection, RedisPubSubAsyncCommands<byte[], byte[]> pubSub, long generation) {

        boolean alive() {
            return PubSubConnection.alive(connection) != null;
        }
    }

    private final RedisConnectionFactory factory;
    private final byte[] anchorChannel;
    private final Events events;
    /** Where the connection is opened, which waits for Redis. */
    private final Executor opener;
    /** Guards {@link #openingNow}; held for no call to Redis: not a monitor, so virtual threads do not pin. */
    private final ReentrantLock opening = new ReentrantLock();
    private final OpeningUnderWay<Live> openingNow = new OpeningUnderWay<>(opening);
    private volatile @Nullable Live live;
    /** Counts the connections opened: a channel subscribed on an earlier one must be subscribed again. */
    private long generation;
    /** Confirmations of the anchor subscription on the current connection: more than one means a reconnect. */
    private final AtomicInteger anchorConfirmations = new AtomicInteger();
    private final UnansweredLately unanswered = new UnansweredLately();
    private volatile boolean closed;

    /** @param opener where the connection is opened: never a waiter's thread, nor one that timers or replies need */
    PubSubConnection(RedisConnectionFactory factory, String anchorChannel, Events events, Executor opener) {
        this.factory = factory;
        this.anchorChannel = anchorChannel.getBytes(StandardCharsets.UTF_8);
        this.events = events;
        this.opener = opener;
    }

    @Override
    public long current() {
        Live current = live;
        return current != null && current.alive() ? current.generation() : 0;
    }

    /**
     * Subscribes {@code channel} on the current connection, opening one if needed.
     *
     * @return the generation it is subscribed on, once Redis confirmed it
     */
    @Override
    public CompletableFuture<Long> subscribe(String channel) {
        String what = "subscribe to " + channel;
        return opened().thenCompose(on -> {
            CompletableFuture<Void> sent;
            try {
                unanswered.check(UnansweredLately.CONNECTION, what);
                sent = PubSubReplies.within(on.pubSub().subscribe(channel.getBytes(StandardCharsets.UTF_8)),
                        on.pubSub().getStatefulConnection().getTimeout(), what);
            }
            catch (RuntimeException ex) {
                sent = CompletableFuture.failedFuture(ex);
            }
            return sent.handle((confirmed, failure) -> {
                if (failure != null) {
                    // Redis's failures come translated; anything else is not Redis's and ends the wait as it is
                    Throwable cause = PubSubReplies.cause(failure);
                    throw cause instanceof DataAccessException ex ? unanswered(ex) : RedisErrors.translate(cause);
                }
                unanswered.answered(UnansweredLately.CONNECTION);
                return on.generation();
            });
        });
    }

    /** Notes {@code ex} as no answer from the connection, if it is one, and returns it. */
    private DataAccessException unanswered(DataAccessException ex) {
        return unanswered.note(UnansweredLately.CONNECTION, ex);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        Live current = live;
        if (closed || current == null || !current.alive()) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            RedisPubSubAsyncCommands<byte[], byte[]> pubSub = current.pubSub();
            return PubSubReplies.within(pubSub.unsubscribe(channel.getBytes(StandardCharsets.UTF_8)),
                    pubSub.getStatefulConnection().getTimeout(), "unsubscribe from " + channel)
                    .exceptionally(failure -> {
                        // a dead connection has no subscriptions left to undo
                        log.debug("Could not unsubscribe from {}", channel, failure);
                        return null;
                    });
        }
        catch (RuntimeException ex) {
            log.debug("Could not unsubscribe from {}", channel, ex);
            return CompletableFuture.completedFuture(null);
        }
    }

    /** The live connection, or the one opening for every caller that needs it now. */
    private CompletableFuture<Live> opened() {
        Live current = live;
        if (current != null && current.alive()) {
            return CompletableFuture.completedFuture(current);
        }
        CompletableFuture<Live> started = new CompletableFuture<>();
        opening.lock();
        try {
            CompletableFuture<Live> shared = openingNow.get();
            if (shared != null) {
                return shared;
            }
            current = live;
            if (current != null && current.alive()) {
                return CompletableFuture.completedFuture(current);
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
        Runnable open = () -> {
            Live fresh = null;
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
        };
        try {
            opener.execute(open);
        }
        catch (RejectedExecutionException ex) {
            openingNow.ended();
            started.completeExceptionally(ReleaseChannels.closedException());
        }
        return started;
    }

    /** Opens a connection and subscribes the anchor: waits for Redis, so never on a waiter's thread of a client. */
    private Live openNow() {
        Live current = live;
        if (closed) {
            throw ReleaseChannels.closedException();
        }
        if (current != null) {
            closeQuietly(current.connection());
        }
        RedisConnection fresh;
        try {
            fresh = factory.getConnection();
        }
        catch (DataAccessException ex) {
            throw unanswered(ex);
        }
        // a wrapped (even proxied) Jedis connection would block in its subscribe for good: ask what is inside
        try {
            RedisDriverCheck.requireLettuce(fresh);
        }
        catch (UnsupportedRedisDriverException ex) {
            closeQuietly(fresh);
            throw ex;
        }
        anchorConfirmations.set(0);
        try {
            // returns once subscribed with Lettuce; re-subscribes by itself after a reconnect
            fresh.subscribe(this, anchorChannel);
        }
        catch (DataAccessException ex) {
            closeQuietly(fresh);
            throw unanswered(ex);
        }
        catch (RuntimeException | Error ex) {
            closeQuietly(fresh); // an Error from a wrapper, too: Redis may already have taken the subscription
            throw ex;
        }
        unanswered.answered(UnansweredLately.CONNECTION);
        RedisPubSubAsyncCommands<byte[], byte[]> pubSub;
        try {
            pubSub = pubSubOf(fresh);
        }
        catch (RuntimeException ex) {
            closeQuietly(fresh);
            throw ex;
        }
        Live opened = new Live(fresh, pubSub, ++generation);
        live = opened;
        if (closed) {
            // close() came while this opened it: the connection goes here
            live = null;
            closeQuietly(fresh);
            throw ReleaseChannels.closedException();
        }
        if (current != null) {
            events.mayHaveMissedReleases(); // releases announced while there was no connection reached nobody
        }
        return opened;
    }

    /** Lettuce's commands on the connection a subscription opened: Spring hands them out once subscribed. */
    @SuppressWarnings("unchecked")
    private static RedisPubSubAsyncCommands<byte[], byte[]> pubSubOf(RedisConnection subscribed) {
        Object commands = subscribed.getNativeConnection();
        if (!(commands instanceof RedisPubSubAsyncCommands<?, ?> pubSub)) {
            throw new IllegalStateException("The Redis driver did not report a subscribed Lettuce connection; relock "
                    + "needs Lettuce");
        }
        return (RedisPubSubAsyncCommands<byte[], byte[]>) pubSub;
    }

    private static @Nullable Subscription alive(@Nullable RedisConnection connection) {
        if (connection == null || !connection.isSubscribed()) {
            return null;
        }
        Subscription subscription = connection.getSubscription();
        return subscription != null && subscription.isAlive() ? subscription : null;
    }

    @Override
    public void onMessage(Message message, byte @Nullable [] pattern) {
        events.released(new String(message.getChannel(), StandardCharsets.UTF_8),
                new String(message.getBody(), StandardCharsets.UTF_8));
    }

    /** Lettuce confirms each subscription, also when it re-subscribes after a reconnect. */
    @Override
    public void onChannelSubscribed(byte[] channel, long count) {
        if (!Arrays.equals(channel, anchorChannel)) {
            events.subscribed(new String(channel, StandardCharsets.UTF_8));
        }
        else if (anchorConfirmations.incrementAndGet() > 1) {
            log.debug("Pub/sub connection re-subscribed after a reconnect; waking every waiter");
            events.mayHaveMissedReleases();
        }
    }

    @Override
    public void close() {
        closed = true;
        openingNow.fail(ReleaseChannels.closedException()); // its callers hear of the close now
        // never waits for an opening under way: that may wait for Redis for the whole connection timeout (a node
        // that accepts connections and answers nothing). It sees `closed` once it has its connection and closes it.
        Live current = live;
        live = null;
        if (current != null) {
            closeQuietly(current.connection());
        }
    }

    private static void closeQuietly(RedisConnection connection) {
        try {
            connection.close();
        }
        catch (RuntimeException ex) {
            log.debug("Could not close the pub/sub connection", ex);
        }
    }
}
