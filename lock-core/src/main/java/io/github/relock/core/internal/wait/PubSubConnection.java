package io.github.relock.core.internal.wait;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;

import io.github.relock.core.UnsupportedRedisDriverException;
import io.github.relock.core.internal.command.Interrupts;
import io.github.relock.core.internal.command.RedisDriverCheck;

/**
 * One client's pub/sub connection. An idle anchor channel keeps it subscribed between waits, so a wait
 * does not pay for a new connection, and tells when it came back: Lettuce re-subscribes every channel
 * after a reconnect, and a second confirmation of the anchor means releases announced meanwhile may have
 * been missed. Subscribing is safe to repeat, so an interrupt never cuts it short.
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

    private final RedisConnectionFactory factory;
    private final byte[] anchorChannel;
    private final Events events;
    /** Guards opening the connection, which talks to Redis: not a monitor, so virtual threads do not pin. */
    private final ReentrantLock opening = new ReentrantLock();
    private volatile @Nullable RedisConnection connection;
    /** Counts the connections opened: a channel subscribed on an earlier one must be subscribed again. */
    private volatile long generation;
    /** Confirmations of the anchor subscription on the current connection: more than one means a reconnect. */
    private final AtomicInteger anchorConfirmations = new AtomicInteger();
    private final UnansweredLately unanswered = new UnansweredLately();
    private volatile boolean closed;

    PubSubConnection(RedisConnectionFactory factory, String anchorChannel, Events events) {
        this.factory = factory;
        this.anchorChannel = anchorChannel.getBytes(StandardCharsets.UTF_8);
        this.events = events;
    }

    /**
     * Opens the connection if there is none and says which one is in use (1 for the first): a channel
     * subscribed on another one is no longer subscribed.
     */
    @Override
    public long open() {
        Interrupts.uninterruptibly(this::subscription);
        return generation;
    }

    /**
     * Subscribes {@code channel} on the current connection, opening one if needed.
     *
     * @return the generation it is subscribed on
     * @throws DataAccessException if Redis did not confirm it
     */
    @Override
    public long subscribe(String channel) {
        Subscription subscription = Interrupts.uninterruptibly(this::subscription);
        long on = generation;
        unanswered.check(UnansweredLately.CONNECTION, "subscribe to " + channel);
        try {
            Interrupts.uninterruptibly(() -> subscription.subscribe(channel.getBytes(StandardCharsets.UTF_8)));
        }
        catch (DataAccessException ex) {
            throw unanswered(ex);
        }
        catch (RuntimeException ex) {
            // the Subscription API passes the driver's own exceptions through: a timeout or a lost connection
            // must not read as an error reply (see RedisFailures)
            DataAccessException translated = factory.translateExceptionIfPossible(ex);
            throw unanswered(translated != null ? translated
                    : new RedisSystemException("Could not subscribe to " + channel + ": " + ex.getMessage(), ex));
        }
        unanswered.answered(UnansweredLately.CONNECTION);
        return on;
    }

    /** Notes {@code ex} as no answer from the connection, if it is one, and returns it. */
    private DataAccessException unanswered(DataAccessException ex) {
        return unanswered.note(UnansweredLately.CONNECTION, ex);
    }

    @Override
    public void unsubscribe(String channel) {
        RedisConnection current = connection;
        Subscription subscription = current == null ? null : current.getSubscription();
        if (closed || subscription == null) {
            return;
        }
        try {
            Interrupts.uninterruptibly(() -> subscription.unsubscribe(channel.getBytes(StandardCharsets.UTF_8)));
        }
        catch (RuntimeException ex) {
            // a dead connection has no subscriptions left to undo
            log.debug("Could not unsubscribe from {}", channel, ex);
        }
    }

    private Subscription subscription() {
        Subscription alive = alive(connection);
        if (alive != null) {
            return alive;
        }
        opening.lock();
        try {
            RedisConnection current = connection;
            alive = alive(current);
            if (alive != null) {
                return alive;
            }
            if (closed) {
                throw new IllegalStateException("The RedisLockClient was closed while this thread waited for a lock");
            }
            if (current != null) {
                closeQuietly(current);
            }
            unanswered.check(UnansweredLately.CONNECTION, "open the pub/sub connection");
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
            Subscription subscription = fresh.getSubscription();
            if (subscription == null) {
                closeQuietly(fresh);
                throw new IllegalStateException("The Redis driver did not report a subscription; relock needs Lettuce");
            }
            generation++;
            connection = fresh;
            if (closed) {
                // close() came while this opened it and did not wait for this thread: the connection goes here
                connection = null;
                closeQuietly(fresh);
                throw new IllegalStateException("The RedisLockClient was closed while this thread waited for a lock");
            }
            if (current != null) {
                events.mayHaveMissedReleases(); // releases announced while there was no connection reached nobody
            }
            return subscription;
        }
        finally {
            opening.unlock();
        }
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
        // never waits for a thread that is opening the connection: that one may wait for Redis for the whole
        // connection timeout (a node that accepts connections and answers nothing). It sees `closed` once it
        // has its connection and closes it itself; one it made before this read `closed` is closed here.
        boolean locked = opening.tryLock();
        try {
            RedisConnection current = connection;
            if (current != null) {
                closeQuietly(current);
                connection = null;
            }
        }
        finally {
            if (locked) {
                opening.unlock();
            }
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
