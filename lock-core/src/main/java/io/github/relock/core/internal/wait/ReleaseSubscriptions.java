package io.github.relock.core.internal.wait;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.internal.command.ScriptRunner;
import io.github.relock.core.internal.kind.WakeUp;
import io.github.relock.core.internal.redis.ClientScheduler;

/**
 * The local waiters of one client, a {@link WaiterQueue} per lock they wait for. A lock's release channel
 * is subscribed while at least one local thread waits for that lock and unsubscribed once none has for half a
 * second (the lock's next waiter then joins at once); a release message wakes one local waiter, not all of them.
 *
 * <p>No thread waits for Redis here: a join returns a future that Redis's confirmation of the SUBSCRIBE completes
 * (Lettuce's asynchronous pub/sub commands), and a leave sends its UNSUBSCRIBE and goes. A queue's lock is held
 * briefly, never across a call to Redis, so a virtual thread waiting here does not pin its carrier. A queue whose
 * last waiter left is unsubscribed before its channel is subscribed again: the new queue sends its SUBSCRIBE once
 * that UNSUBSCRIBE ended, so the two commands never cross. Waiters also wake when the holder's lease would end, so
 * a lost message costs time, never a hang.
 */
public final class ReleaseSubscriptions implements PubSubConnection.Events, AutoCloseable {

    private final ReleaseChannels connection;
    private final Map<String, WaiterQueue> queues = new ConcurrentHashMap<>();
    private final Announcements announcements;
    private final IdleChannels idle;
    /** Told when the client closes: an asynchronous wait between subscriptions has no waiter to wake. */
    private final Set<Runnable> closeWatchers = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** Subscriptions whose pub/sub connection opens on the thread that first needs it. */
    public ReleaseSubscriptions(RedisConnectionFactory factory, String anchorChannel) {
        this(factory, anchorChannel, "", null, Runnable::run);
    }

    /**
     * @param clientId  the client's id, which starts its owner ids
     * @param scheduler where a waiter's look after another client's turn runs, and slot moves are followed
     * @param opener    where the pub/sub connection opens (Spring's subscribe of the anchor, which waits for Redis up
     *                  to the connection timeout): not the scheduler, whose timers (lease renewals, waits) must not
     *                  wait behind it; openings are rare (a first wait, a connection that died) and one at a time
     */
    public ReleaseSubscriptions(RedisConnectionFactory factory, String anchorChannel, String clientId,
            @Nullable ClientScheduler scheduler, Executor opener) {
        this.connection = ScriptRunner.isCluster(factory)
                ? new ShardedPubSubConnection(factory, anchorChannel, this, scheduler, opener)
                : new PubSubConnection(factory, anchorChannel, this, opener);
        this.announcements = new Announcements(clientId, scheduler);
        this.idle = new IdleChannels(queues, connection, () -> closed, scheduler);
    }

    /**
     * Joins the waiters of {@code channelName}, subscribing first if this is the first local waiter: the future
     * completes when Redis confirmed the subscription, at once if the channel is subscribed on the current
     * connection already. A local releaser may hand the lock to the waiter if it is a {@code candidate} (null: never);
     * {@code wakeUp} says whom of the channel's local waiters a release wakes (the first joiner's choice holds for the
     * channel); {@code name} is this waiter's, for {@link WakeUp#NAMED}; a wake-up runs {@code onWake}, which must not
     * block. It fails with a {@link org.springframework.dao.DataAccessException} if Redis did not
     * answer or refused, with an {@link IllegalStateException} if the client closed. No thread waits meanwhile.
     */
    public CompletableFuture<ReleaseWaiter> joinAsync(String channelName, ReleaseWaiter.@Nullable Candidate candidate,
            WakeUp wakeUp, String name, Runnable onWake) {
        while (true) {
            if (closed) {
                return CompletableFuture.failedFuture(ReleaseChannels.closedException());
            }
            WaiterQueue queue = queues.computeIfAbsent(channelName,
                    channel -> new WaiterQueue(channel, wakeUp, idle.unsubscribing(channel)));
            queue.lock.lock();
            try {
                if (queue.retired) {
                    continue; // its last waiter left and it is unsubscribed: start a new one
                }
                if (closed) {
                    return CompletableFuture.failedFuture(ReleaseChannels.closedException());
                }
                // counted in from now: the queue is not unsubscribed under a join that is under way
                queue.joined();
                if (queue.subscribedOn(connection.current())) {
                    return CompletableFuture.completedFuture(admit(queue, candidate, name, onWake));
                }
                CompletableFuture<Long> subscribing = queue.subscription;
                if (subscribing == null || subscribing.isDone()) {
                    // never crossing the UNSUBSCRIBE of the queue before: sent once that ended
                    subscribing = queue.after.handle((unused, failure) -> null)
                            .thenCompose(unused -> connection.subscribe(queue.channel));
                    queue.subscription = subscribing;
                }
                return subscribing.handle((on, failure) -> joined(queue, failure, candidate, name, onWake));
            }
            finally {
                queue.lock.unlock();
            }
        }
    }

    /**
     * Joins the waiters of {@code channelName} at once if Redis already confirmed that channel on the current
     * connection (other local threads wait for the same lock), else returns null and sends nothing. A wait that
     * joins before its first attempt needs no second attempt after subscribing: every release after that attempt
     * reaches it. The arguments are {@link #joinAsync}'s.
     */
    public @Nullable ReleaseWaiter joinIfSubscribed(String channelName, ReleaseWaiter.@Nullable Candidate candidate,
            String name, Runnable onWake) {
        WaiterQueue queue = queues.get(channelName);
        if (queue == null || closed) {
            return null;
        }
        queue.lock.lock();
        try {
            if (queue.retired || closed || !queue.subscribedOn(connection.current())) {
                return null;
            }
            queue.joined();
            return admit(queue, candidate, name, onWake);
        }
        finally {
            queue.lock.unlock();
        }
    }

    /** The subscribe a joiner waited for ended; a queue nobody is left in is dropped again if it failed. */
    private ReleaseWaiter joined(WaiterQueue queue, @Nullable Throwable failure,
            ReleaseWaiter.@Nullable Candidate candidate, String name, Runnable onWake) {
        queue.lock.lock();
        try {
            if (closed) {
                failure = ReleaseChannels.closedException(); // whatever Redis said meanwhile: the close is why this join ends
            }
            if (failure != null) {
                Throwable cause = PubSubReplies.cause(failure);
                if (queue.left() == 0 && !queue.retired) {
                    if (!closed && cause instanceof QueryTimeoutException) {
                        idle.unanswered(queue); // sent, not answered: Redis may still run it, so undone as after a leave
                    }
                    else {
                        // refused, never sent (no connection), or the client closed: nothing subscribed to undo
                        queue.retired = true;
                        queues.remove(queue.channel, queue);
                    }
                }
                throw cause instanceof RuntimeException ex ? ex : new CompletionException(cause);
            }
            return admit(queue, candidate, name, onWake);
        }
        finally {
            queue.lock.unlock();
        }
    }

    private ReleaseWaiter admit(WaiterQueue queue, ReleaseWaiter.@Nullable Candidate candidate,
            String name, Runnable onWake) {
        ReleaseWaiter waiter = new ReleaseWaiter(queue.turn,
                (leaving, unusedWakeUp) -> leave(leaving, queue, unusedWakeUp), candidate, name,
                onWake);
        queue.add(waiter);
        return waiter;
    }

    private void leave(ReleaseWaiter waiter, WaiterQueue queue, boolean unusedWakeUp) {
        queue.remove(waiter);
        if (queue.left() == 0) {
            idle.left(queue); // sends the UNSUBSCRIBE, waits for no answer
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
        if (!queues.containsKey(channel)) {
            idle.confirmed(channel);
        }
    }

    @Override
    public void mayHaveMissedReleases() {
        queues.values().forEach(WaiterQueue::wakeAll);
    }

    /** Channels with local waiters right now, or kept a moment after their last waiter left. */
    public int activeChannels() {
        return queues.size();
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
