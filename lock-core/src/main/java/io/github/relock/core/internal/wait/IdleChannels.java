package io.github.relock.core.internal.wait;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.redis.ClientScheduler;

/**
 * Unsubscribes the channels no local waiter has waited on for {@link #KEEP_MILLIS}, without waiting for Redis: the
 * UNSUBSCRIBE is sent, its queue leaves at once, and a new queue of the channel sends its SUBSCRIBE only once that
 * UNSUBSCRIBE ended. Until then the channel stays subscribed, so the lock's next local waiter joins at once instead
 * of sending an UNSUBSCRIBE and a SUBSCRIBE.
 */
final class IdleChannels {

    private static final CompletableFuture<Void> NONE = CompletableFuture.completedFuture(null);
    /** How long a channel stays subscribed after its last local waiter left, for that lock's next waiter. */
    static final long KEEP_MILLIS = 500;

    private final Map<String, WaiterQueue> queues;
    private final ReleaseChannels connection;
    private final BooleanSupplier closed;
    /** Where the idle checks run; null: a channel goes as soon as its last waiter left. */
    private final @Nullable ClientScheduler scheduler;
    /** The UNSUBSCRIBEs Redis has not answered yet, by channel. */
    private final Map<String, CompletableFuture<?>> unsubscribing = new ConcurrentHashMap<>();

    IdleChannels(Map<String, WaiterQueue> queues, ReleaseChannels connection, BooleanSupplier closed,
            @Nullable ClientScheduler scheduler) {
        this.scheduler = scheduler;
        this.queues = queues;
        this.connection = connection;
        this.closed = closed;
    }

    /** What a new queue of {@code channel} subscribes after: the unsubscribe of the one before, if under way. */
    CompletableFuture<?> unsubscribing(String channel) {
        return unsubscribing.getOrDefault(channel, NONE);
    }

    /**
     * The last local waiter of {@code queue} left: its channel goes once nobody has waited on it for
     * {@link #KEEP_MILLIS}, unless a joiner came back meanwhile. One idle check per queue is pending at a time.
     */
    void left(WaiterQueue queue) {
        if (scheduler == null) {
            unsubscribeIfIdle(queue);
            return;
        }
        queue.lock.lock();
        try {
            queue.idleSinceNanos = System.nanoTime();
            if (queue.idleCheckPending) {
                return; // that check looks again from this leave on
            }
            queue.idleCheckPending = true;
        }
        finally {
            queue.lock.unlock();
        }
        checkLater(queue, TimeUnit.MILLISECONDS.toNanos(KEEP_MILLIS));
    }

    private void checkLater(WaiterQueue queue, long nanos) {
        try {
            scheduler.schedule(() -> idleCheck(queue), nanos);
        }
        catch (RejectedExecutionException closing) {
            // the client closes: its pub/sub connection goes, and every channel with it
        }
    }

    /** Unsubscribes {@code queue}'s channel if nobody waited on it for {@link #KEEP_MILLIS}; else looks again later. */
    private void idleCheck(WaiterQueue queue) {
        long remaining;
        queue.lock.lock();
        try {
            if (queue.members() > 0) {
                queue.idleCheckPending = false; // wanted again: the next leave schedules the next check
                return;
            }
            remaining = TimeUnit.MILLISECONDS.toNanos(KEEP_MILLIS) - (System.nanoTime() - queue.idleSinceNanos);
            if (remaining <= 0) {
                queue.idleCheckPending = false;
            }
        }
        finally {
            queue.lock.unlock();
        }
        if (remaining > 0) {
            checkLater(queue, remaining); // a waiter came and went since this check was scheduled
        }
        else {
            unsubscribeIfIdle(queue);
        }
    }

    /**
     * Redis confirmed {@code channel}, maybe a SUBSCRIBE that timed out long ago, while no queue of this client has
     * it: it is unsubscribed. Decided in one step against joiners: a queue a joiner started meanwhile keeps the
     * channel, and one started after subscribes once this UNSUBSCRIBE ended, as after a leave.
     */
    void confirmed(String channel) {
        queues.compute(channel, (name, joinedMeanwhile) -> {
            if (joinedMeanwhile == null && !closed.getAsBoolean()) {
                unsubscribeAfter(name, unsubscribing(name));
            }
            return joinedMeanwhile;
        });
    }

    /**
     * {@code queue}'s SUBSCRIBE got no answer in time and nobody is left in it: it is dropped as after a leave, with
     * an UNSUBSCRIBE sent after that SUBSCRIBE, since Redis may still run it (its confirmation may even be on its
     * way as the timeout fires, too late for {@link #confirmed}). Under the queue's lock.
     */
    void unanswered(WaiterQueue queue) {
        queue.retired = true;
        queue.cancelLook();
        unsubscribeAfter(queue.channel, queue.after);
        queues.remove(queue.channel, queue);
    }

    /** Unsubscribes {@code queue}'s channel and drops the queue, unless a joiner came back or the client closed. */
    private void unsubscribeIfIdle(WaiterQueue queue) {
        queue.lock.lock();
        try {
            if (queue.retired || queue.members() > 0 || closed.getAsBoolean()) {
                return; // wanted after all: a joiner came back, or is about to
            }
            queue.retired = true;
            queue.cancelLook();
            // known before the queue leaves the map: a joiner then starts a new queue, which subscribes after it
            unsubscribeAfter(queue.channel, queue.after);
            queues.remove(queue.channel, queue);
        }
        finally {
            queue.lock.unlock();
        }
    }

    /**
     * Sends {@code channel}'s UNSUBSCRIBE once {@code before} (the unsubscribe of the queue before) ended, and notes
     * it until Redis answered: a new queue of the channel sends its SUBSCRIBE after it, so the two never cross.
     */
    private void unsubscribeAfter(String channel, CompletableFuture<?> before) {
        CompletableFuture<Void> gone = before.handle((unused, failure) -> null)
                .thenCompose(unused -> connection.unsubscribe(channel));
        unsubscribing.put(channel, gone);
        gone.whenComplete((unused, failure) -> unsubscribing.remove(channel, gone));
    }
}
