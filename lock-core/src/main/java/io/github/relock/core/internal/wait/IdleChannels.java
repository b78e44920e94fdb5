package io.github.relock.core.internal.wait;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.github.relock.core.internal.kind.WakeUp;

/**
 * Unsubscribes the channels no local waiter waits on any more, on the {@link PubSubLane}, never on the thread
 * of the waiter that left: an UNSUBSCRIBE Redis does not answer would hold it for the whole command timeout.
 */
final class IdleChannels {

    /** How long a leaving waiter gives the usual quick UNSUBSCRIBE, so that the channel is gone when it returns. */
    private static final long LEAVE_WAIT_MILLIS = 50;

    private final Map<String, WaiterQueue> queues;
    private final ReleaseChannels connection;
    private final PubSubLane lane;
    private final BooleanSupplier closed;

    IdleChannels(Map<String, WaiterQueue> queues, ReleaseChannels connection, PubSubLane lane, BooleanSupplier closed) {
        this.queues = queues;
        this.connection = connection;
        this.lane = lane;
        this.closed = closed;
    }

    /** The last local waiter of {@code queue} left: its channel goes, unless a joiner came back meanwhile. */
    void left(WaiterQueue queue) {
        CountDownLatch done = new CountDownLatch(1);
        try {
            lane.execute(() -> {
                try {
                    unsubscribeIfIdle(queue, false);
                }
                finally {
                    done.countDown();
                }
            });
        }
        catch (RejectedExecutionException ex) {
            return; // closing: the connection goes, and its subscriptions with it
        }
        if (lane.runsOnCurrentThread()) {
            return; // left on the lane itself (a late join given up): the unsubscribe runs right after this task
        }
        try {
            done.await(LEAVE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Redis confirmed {@code channel}, maybe a SUBSCRIBE that timed out long ago: undone if nobody waits on it. */
    void confirmed(String channel) {
        try {
            lane.execute(() -> {
                // a queue of its own, so that a joiner waits for the unsubscribe, then starts anew (as after leave)
                unsubscribeIfIdle(queues.computeIfAbsent(channel, unused -> new WaiterQueue(channel, WakeUp.ONE)), true);
            });
        }
        catch (RejectedExecutionException ex) {
            // closing: the connection goes, and its subscriptions with it
        }
    }

    /** @param unconfirmedOnly leave it if a joiner subscribed it (a confirmation that came late, not a leave) */
    private void unsubscribeIfIdle(WaiterQueue queue, boolean unconfirmedOnly) {
        queue.lock.lock();
        try {
            if (queue.retired || queue.members() > 0 || unconfirmedOnly && queue.subscribedOn != 0
                    || closed.getAsBoolean()) {
                return; // wanted after all: a joiner came back, or is about to
            }
            // unsubscribed before it leaves the map: a joiner waits for this lock, then starts a new queue
            queue.retired = true;
            try {
                queue.cancelLook();
                connection.unsubscribe(queue.channel);
            }
            finally {
                // whatever the unsubscribe did: a retired queue left in the map would turn every later joiner away
                queues.remove(queue.channel, queue);
            }
        }
        finally {
            queue.lock.unlock();
        }
    }
}
