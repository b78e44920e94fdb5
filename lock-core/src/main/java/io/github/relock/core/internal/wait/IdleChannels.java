package io.github.relock.core.internal.wait;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

import io.github.relock.core.internal.kind.WakeUp;

/**
 * Unsubscribes the channels no local waiter waits on any more, without waiting for Redis: the UNSUBSCRIBE is sent,
 * its queue leaves at once, and a new queue of the channel sends its SUBSCRIBE only once that UNSUBSCRIBE ended.
 */
final class IdleChannels {

    private static final CompletableFuture<Void> NONE = CompletableFuture.completedFuture(null);

    private final Map<String, WaiterQueue> queues;
    private final ReleaseChannels connection;
    private final BooleanSupplier closed;
    /** The UNSUBSCRIBEs Redis has not answered yet, by channel. */
    private final Map<String, CompletableFuture<?>> unsubscribing = new ConcurrentHashMap<>();

    IdleChannels(Map<String, WaiterQueue> queues, ReleaseChannels connection, BooleanSupplier closed) {
        this.queues = queues;
        this.connection = connection;
        this.closed = closed;
    }

    /** What a new queue of {@code channel} subscribes after: the unsubscribe of the one before, if under way. */
    CompletableFuture<?> unsubscribing(String channel) {
        return unsubscribing.getOrDefault(channel, NONE);
    }

    /** The last local waiter of {@code queue} left: its channel goes, unless a joiner came back meanwhile. */
    void left(WaiterQueue queue) {
        unsubscribeIfIdle(queue, false);
    }

    /** Redis confirmed {@code channel}, maybe a SUBSCRIBE that timed out long ago: undone if nobody waits on it. */
    void confirmed(String channel) {
        // a queue of its own, so that a joiner subscribes after the unsubscribe (as after a leave)
        unsubscribeIfIdle(queues.computeIfAbsent(channel, unused -> new WaiterQueue(channel, WakeUp.ONE,
                unsubscribing(channel))), true);
    }

    /** @param unconfirmedOnly leave it if a joiner subscribed it (a confirmation that came late, not a leave) */
    private void unsubscribeIfIdle(WaiterQueue queue, boolean unconfirmedOnly) {
        queue.lock.lock();
        try {
            if (queue.retired || queue.members() > 0 || unconfirmedOnly && queue.subscription != null
                    || closed.getAsBoolean()) {
                return; // wanted after all: a joiner came back, or is about to
            }
            queue.retired = true;
            queue.cancelLook();
            // its own subscribe ended before its last member left; a late confirmation's queue waits for the one before
            CompletableFuture<Void> gone = queue.after.handle((unused, failure) -> null)
                    .thenCompose(unused -> connection.unsubscribe(queue.channel));
            // known before the queue leaves the map: a joiner then starts a new queue, which subscribes after it
            unsubscribing.put(queue.channel, gone);
            queues.remove(queue.channel, queue);
            gone.whenComplete((unused, failure) -> unsubscribing.remove(queue.channel, gone));
        }
        finally {
            queue.lock.unlock();
        }
    }
}
