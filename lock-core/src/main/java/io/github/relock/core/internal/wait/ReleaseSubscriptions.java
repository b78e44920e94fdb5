package io.github.relock.core.internal.wait;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.internal.kind.WakeUp;
import io.github.relock.core.internal.redis.ClientScheduler;

/**
 * The local waiters of one client, a {@link WaiterQueue} per lock they wait for. A lock's release channel
 * is subscribed while at least one local thread waits for that lock and unsubscribed when the last one
 * leaves; a release message wakes one local waiter, not all of them.
 *
 * <p>Subscribing talks to Redis, so it happens under that queue's own lock only: a slow SUBSCRIBE holds up
 * waiters of the same lock, never those of other locks, and no thread blocks on a monitor (a virtual
 * thread waiting here does not pin its carrier). A queue whose last waiter left is unsubscribed before
 * anyone may subscribe its channel again, so the two commands never cross on the connection. Waiters also
 * wake when the holder's lease would end, so a lost message costs time, never a hang. A client's own
 * waiters join ({@code JoinWithin}) and leave ({@link IdleChannels}) through its {@link PubSubLane}, so none
 * of them waits for a pub/sub call past its own deadline.
 */
public final class ReleaseSubscriptions implements PubSubConnection.Events, AutoCloseable {

    private final ReleaseChannels connection;
    private final Map<String, WaiterQueue> queues = new ConcurrentHashMap<>();
    /** Where unwanted subscriptions are undone; null: never (they go with the connection), and no lane. */
    private final @Nullable AsyncRunner timers;
    private final Announcements announcements;
    private final PubSubLane lane;
    private final IdleChannels idle;
    /** Told when the client closes: an asynchronous wait between subscriptions has no waiter to wake. */
    private final Set<Runnable> closeWatchers = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public ReleaseSubscriptions(RedisConnectionFactory factory, String anchorChannel) {
        this(factory, anchorChannel, "", null, null);
    }

    /**
     * @param clientId the client's id, which starts its owner ids
     * @param timers    where the pub/sub lane's calls run
     * @param scheduler where a waiter's look after another client's turn runs
     */
    public ReleaseSubscriptions(RedisConnectionFactory factory, String anchorChannel, String clientId,
            @Nullable AsyncRunner timers, @Nullable ClientScheduler scheduler) {
        this.connection = ShardedPubSubConnection.isCluster(factory)
                ? new ShardedPubSubConnection(factory, anchorChannel, this, scheduler)
                : new PubSubConnection(factory, anchorChannel, this);
        this.timers = timers;
        this.announcements = new Announcements(clientId, scheduler);
        this.lane = new PubSubLane(timers);
        this.idle = new IdleChannels(queues, connection, lane, () -> closed);
    }

    /**
     * Joins the waiters of {@code channelName}, subscribing first if this is the first local waiter.
     * When this returns, releases on the channel reach the waiter. An interrupt does not cut the
     * subscription short (its status is kept for the caller).
     *
     * @throws org.springframework.dao.DataAccessException if Redis did not confirm the subscription
     */
    public ReleaseWaiter join(String channelName) {
        return join(channelName, null, WakeUp.ONE, "");
    }

    /**
     * As {@link #join(String)}, for a waiter a local releaser may hand the lock to, as {@code candidate};
     * null: never hand it over. {@code wakeUp} says whom of the channel's local waiters a release wakes
     * (the first joiner's choice holds for the channel); {@code name} is this waiter's, for {@link WakeUp#NAMED}.
     */
    public ReleaseWaiter join(String channelName, ReleaseWaiter.@Nullable Candidate candidate, WakeUp wakeUp, String name) {
        return join(channelName, candidate, wakeUp, name, null);
    }

    /** As above, for a waiter that no thread sleeps in: a wake-up runs {@code onWake}, which must not block. */
    public ReleaseWaiter join(String channelName, ReleaseWaiter.@Nullable Candidate candidate, WakeUp wakeUp, String name,
            @Nullable Runnable onWake) {
        return join(channelName, candidate, wakeUp, name, Thread.currentThread(), onWake);
    }

    /** As above, run on another thread than the one that sleeps in the waiter, {@code sleeper}. */
    public ReleaseWaiter join(String channelName, ReleaseWaiter.@Nullable Candidate candidate, WakeUp wakeUp, String name,
            Thread sleeper, @Nullable Runnable onWake) {
        while (true) {
            ensureOpen();
            WaiterQueue queue = queues.computeIfAbsent(channelName, channel -> new WaiterQueue(channel, wakeUp));
            queue.lock.lock();
            try {
                if (queue.retired) {
                    continue; // its last waiter left and unsubscribed it: start a new one
                }
                ensureOpen();
                if (queue.subscribedOn != connection.open()) {
                    subscribe(queue);
                }
                ReleaseWaiter waiter = new ReleaseWaiter(queue.streak, this::ensureOpen,
                        (leaving, unusedWakeUp) -> leave(leaving, queue, unusedWakeUp), candidate, queue.joined() > 0,
                        name, sleeper, onWake);
                queue.add(waiter);
                return waiter;
            }
            finally {
                queue.lock.unlock();
            }
        }
    }

    /** Subscribes under the queue's lock; a queue nobody ever joined is dropped again if that fails. */
    private void subscribe(WaiterQueue queue) {
        try {
            queue.subscribedOn = connection.subscribe(queue.channel);
        }
        catch (RuntimeException ex) {
            if (queue.members() == 0) {
                queue.retired = true;
                queues.remove(queue.channel, queue);
            }
            throw ex;
        }
    }

    private void leave(ReleaseWaiter waiter, WaiterQueue queue, boolean unusedWakeUp) {
        queue.remove(waiter);
        if (queue.left() == 0) {
            idle.left(queue); // not here: an UNSUBSCRIBE Redis does not answer would hold this waiter
        }
        if (unusedWakeUp) {
            queue.wakeOne();
        }
    }

    /**
     * A local thread asleep on this lock, reserved for a hand-off ({@link ReleaseWaiter#offer()}), or
     * null if there is none. The caller then grants or declines it.
     */
    public @Nullable ReleaseWaiter reserveSleeper(String channelName) {
        WaiterQueue queue = queues.get(channelName);
        return queue == null ? null : queue.reserveSleeper();
    }

    /**
     * How long this client's threads should leave the lock alone because a hand-off just freed it for
     * another client (0 almost always).
     */
    public long stepBackNanos(String channelName) {
        WaiterQueue queue = queues.get(channelName);
        return queue == null ? 0 : queue.streak.stepBackNanos(System.nanoTime());
    }

    @Override
    public void released(String channel, String message) {
        WaiterQueue queue = queues.get(channel);
        if (queue != null) {
            announcements.heard(queue, message);
        }
    }

    /**
     * A SUBSCRIBE that timed out still runs if the connection comes back, when no local thread may wait on
     * its channel any more: such a subscription is undone, else it would stay (and be renewed on reconnects).
     */
    @Override
    public void subscribed(String channel) {
        if (timers != null && !queues.containsKey(channel)) {
            idle.confirmed(channel); // not on the driver's thread: it talks to Redis
        }
    }

    @Override
    public void mayHaveMissedReleases() {
        queues.values().forEach(WaiterQueue::wakeAll);
    }

    /** Whether a local waiter waits on {@code channelName} right now. */
    public boolean waiting(String channelName) {
        WaiterQueue queue = queues.get(channelName);
        return queue != null && queue.members() > 0;
    }

    /** Where calls on the pub/sub connection run, one at a time, off the waiters' threads. */
    public PubSubLane lane() {
        return lane;
    }

    /** Channels with local waiters right now. */
    public int activeChannels() {
        return queues.size();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("The RedisLockClient was closed while this thread waited for a lock");
        }
    }

    /**
     * Runs {@code onClose} (which must not block) when the client closes, at once if it has, until
     * {@link #unwatchClose}.
     */
    public void watchClose(Runnable onClose) {
        closeWatchers.add(onClose);
        if (closed) {
            onClose.run();
        }
    }

    public void unwatchClose(Runnable onClose) {
        closeWatchers.remove(onClose);
    }

    /** Wakes every waiter with an error, then drops the pub/sub connection. */
    @Override
    public void close() {
        closed = true;
        queues.values().forEach(WaiterQueue::wakeForShutdown);
        closeWatchers.forEach(Runnable::run);
        connection.close();
        queues.clear();
    }
}
