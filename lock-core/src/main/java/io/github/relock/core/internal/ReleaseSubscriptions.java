package io.github.relock.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
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

/**
 * One client's pub/sub connection and the local waiters behind it. A lock's release channel is
 * subscribed while at least one local thread waits for that lock and unsubscribed when the last one
 * leaves; a release message wakes one local waiter, not all of them.
 *
 * <p>Subscribing talks to Redis, so it happens under that channel's own lock only: a slow SUBSCRIBE holds
 * up waiters of the same lock, never those of other locks, and no thread blocks on a monitor (a virtual
 * thread waiting here does not pin its carrier). A channel whose last waiter left is unsubscribed before
 * anyone may subscribe it again, so the two commands never cross on the connection.
 *
 * <p>An idle anchor channel keeps the connection subscribed between waits, so a wait does not pay for
 * a new connection. It also tells when the connection came back: Lettuce re-subscribes every channel
 * after a reconnect, and a second confirmation of the anchor means releases announced meanwhile may
 * have been missed, so every local waiter is woken to look again. Waiters also wake when the holder's
 * lease would end, so a lost message costs time, never a hang.
 */
public final class ReleaseSubscriptions implements MessageListener, SubscriptionListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReleaseSubscriptions.class);

    /** Local waiters for one lock's release channel. */
    static final class Channel {
        final String name;
        final Queue<ReleaseWaiter> waiters = new ConcurrentLinkedQueue<>();
        final HandOffStreak streak = new HandOffStreak();
        /** Guards the fields below; held while (un)subscribing this channel, and for nothing else. */
        final ReentrantLock lock = new ReentrantLock();
        int members;
        /** The connection generation this channel is subscribed on; 0: not subscribed. */
        long subscribedOn;
        /** Unsubscribed after its last waiter left: a joiner must start a new channel. */
        boolean retired;

        Channel(String name) {
            this.name = name;
        }

        void wakeOne() {
            for (ReleaseWaiter waiter : waiters) {
                if (waiter.signal()) {
                    return;
                }
            }
        }

        void wakeAll() {
            for (ReleaseWaiter waiter : waiters) {
                waiter.signal();
            }
        }
    }

    private final RedisConnectionFactory factory;
    private final byte[] anchorChannel;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    /** Guards opening the connection, which talks to Redis: not a monitor, so virtual threads do not pin. */
    private final ReentrantLock connectionLock = new ReentrantLock();
    private volatile @Nullable RedisConnection connection;
    /** Counts the connections opened: a channel subscribed on an earlier one must be subscribed again. */
    private volatile long generation;
    /** Confirmations of the anchor subscription on the current connection: more than one means a reconnect. */
    private final AtomicInteger anchorConfirmations = new AtomicInteger();
    private volatile boolean closed;

    public ReleaseSubscriptions(RedisConnectionFactory factory, String anchorChannel) {
        this.factory = factory;
        this.anchorChannel = anchorChannel.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Joins the waiters of {@code channelName}, subscribing first if this is the first local waiter.
     * When this returns, releases on the channel reach the waiter. An interrupt does not cut the
     * subscription short (its status is kept for the caller).
     *
     * @throws org.springframework.dao.DataAccessException if Redis did not confirm the subscription
     */
    public ReleaseWaiter join(String channelName) {
        return join(channelName, null);
    }

    /**
     * As {@link #join(String)}, for a waiter a local releaser may hand the lock to, as {@code candidate};
     * null: never hand it over.
     */
    public ReleaseWaiter join(String channelName, ReleaseWaiter.@Nullable Candidate candidate) {
        while (true) {
            ensureOpen();
            Channel channel = channels.computeIfAbsent(channelName, Channel::new);
            channel.lock.lock();
            try {
                if (channel.retired) {
                    continue; // its last waiter left and unsubscribed it: start a new one
                }
                ensureOpen();
                // opening the connection is safe to repeat, and an interrupt must not cut it short either
                Subscription subscription = Interrupts.uninterruptibly(this::subscription);
                if (channel.subscribedOn != generation) {
                    subscribe(subscription, channel);
                }
                ReleaseWaiter waiter = new ReleaseWaiter(this, channel, candidate, channel.members > 0);
                channel.members++;
                channel.waiters.add(waiter);
                return waiter;
            }
            finally {
                channel.lock.unlock();
            }
        }
    }

    /** Subscribes under the channel's lock; a channel nobody ever joined is dropped again if that fails. */
    private void subscribe(Subscription subscription, Channel channel) {
        long on = generation;
        try {
            // subscribing twice to one channel is harmless; a subscription the server made but this
            // client never recorded would outlive every waiter
            Interrupts.uninterruptibly(() -> subscription.subscribe(bytes(channel.name)));
        }
        catch (RuntimeException ex) {
            if (channel.members == 0) {
                channel.retired = true;
                channels.remove(channel.name, channel);
            }
            if (ex instanceof DataAccessException) {
                throw ex;
            }
            // the Subscription API passes the driver's own exceptions through
            throw new RedisSystemException("Could not subscribe to " + channel.name + ": " + ex.getMessage(), ex);
        }
        channel.subscribedOn = on;
    }

    /**
     * A local thread asleep on this lock, reserved for a hand-off ({@link ReleaseWaiter#offer()}), or
     * null if there is none. The caller then grants or declines it.
     */
    public @Nullable ReleaseWaiter reserveSleeper(String channelName) {
        Channel channel = channels.get(channelName);
        if (channel == null) {
            return null;
        }
        for (ReleaseWaiter waiter : channel.waiters) {
            if (waiter.offer()) {
                return waiter;
            }
        }
        channel.streak.reset();
        return null;
    }

    /**
     * How long this client's threads should leave the lock alone because a hand-off just freed it for
     * another client (0 almost always).
     */
    public long stepBackNanos(String channelName) {
        Channel channel = channels.get(channelName);
        return channel == null ? 0 : channel.streak.stepBackNanos(System.nanoTime());
    }

    void leave(ReleaseWaiter waiter, Channel channel, boolean unusedWakeUp) {
        channel.lock.lock();
        try {
            channel.waiters.remove(waiter);
            if (--channel.members == 0) {
                // unsubscribed before it leaves the map: a joiner waits for this lock, then starts a new channel
                channel.retired = true;
                unsubscribe(channel.name);
                channels.remove(channel.name, channel);
            }
        }
        finally {
            channel.lock.unlock();
        }
        if (unusedWakeUp) {
            channel.wakeOne();
        }
    }

    @Override
    public void onMessage(Message message, byte @Nullable [] pattern) {
        Channel channel = channels.get(new String(message.getChannel(), StandardCharsets.UTF_8));
        // while this client steps back, the waiter its hand-off declined looks soon, or passes the wake-up on
        if (channel != null && channel.streak.stepBackNanos(System.nanoTime()) == 0) {
            channel.wakeOne();
        }
    }

    /**
     * Lettuce confirms each subscription, also when it re-subscribes after a reconnect. Releases announced
     * while the connection was down reached nobody: wake every waiter so that each tries again.
     */
    @Override
    public void onChannelSubscribed(byte[] channel, long count) {
        if (Arrays.equals(channel, anchorChannel) && anchorConfirmations.incrementAndGet() > 1) {
            log.debug("Pub/sub connection re-subscribed after a reconnect; waking {} waiting lock(s)", channels.size());
            for (Channel waiting : channels.values()) {
                waiting.wakeAll();
            }
        }
    }

    /** Channels with local waiters right now. */
    public int activeChannels() {
        return channels.size();
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("The RedisLockClient was closed while this thread waited for a lock");
        }
    }

    private Subscription subscription() {
        Subscription alive = alive(connection);
        if (alive != null) {
            return alive;
        }
        connectionLock.lock();
        try {
            RedisConnection current = connection;
            alive = alive(current);
            if (alive != null) {
                return alive;
            }
            ensureOpen();
            if (current != null) {
                closeQuietly(current);
            }
            RedisConnection fresh = factory.getConnection();
            anchorConfirmations.set(0);
            try {
                // returns once subscribed with Lettuce; re-subscribes by itself after a reconnect
                fresh.subscribe(this, anchorChannel);
            }
            catch (RuntimeException ex) {
                closeQuietly(fresh);
                throw ex;
            }
            Subscription subscription = fresh.getSubscription();
            if (subscription == null) {
                closeQuietly(fresh);
                throw new IllegalStateException("The Redis driver did not report a subscription; relock needs Lettuce");
            }
            generation++; // channels subscribed on the old connection subscribe again on their next join
            connection = fresh;
            if (current != null) {
                // releases announced while there was no connection reached nobody
                channels.values().forEach(Channel::wakeAll);
            }
            return subscription;
        }
        finally {
            connectionLock.unlock();
        }
    }

    private static @Nullable Subscription alive(@Nullable RedisConnection connection) {
        if (connection == null || !connection.isSubscribed()) {
            return null;
        }
        Subscription subscription = connection.getSubscription();
        return subscription != null && subscription.isAlive() ? subscription : null;
    }

    private void unsubscribe(String channelName) {
        RedisConnection current = connection;
        if (closed || current == null || current.getSubscription() == null) {
            return;
        }
        try {
            Interrupts.uninterruptibly(() -> current.getSubscription().unsubscribe(bytes(channelName)));
        }
        catch (RuntimeException ex) {
            // a dead connection has no subscriptions left to undo
            log.debug("Could not unsubscribe from {}", channelName, ex);
        }
    }

    /** Wakes every waiter with an error, then drops the pub/sub connection. */
    @Override
    public void close() {
        closed = true;
        for (Channel channel : channels.values()) {
            channel.waiters.forEach(ReleaseWaiter::wakeForShutdown);
        }
        connectionLock.lock();
        try {
            RedisConnection current = connection;
            if (current != null) {
                closeQuietly(current);
                connection = null;
            }
            channels.clear();
        }
        finally {
            connectionLock.unlock();
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

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
