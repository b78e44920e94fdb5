package io.github.relock.core.internal.wait;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.kind.WakeUp;
import io.github.relock.core.internal.redis.ClientScheduler;

/**
 * What a release announcement makes one client's waiters of a lock do: look at once (the lock is free, or
 * kept for this client), look when another client's turn or hold ends, or nothing (this client took it).
 */
final class Announcements {

    /** After a release kept for another client: its turn has lapsed by then if it never came (see acquire.lua). */
    static final long OTHERS_TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(LockCommands.TURN_MILLIS + 2);

    /** This client's id and a colon, as its owner ids and turns begin; empty: turns are not told apart. */
    private final String ownClient;
    /** Runs the look after another client's turn; null: look at once. */
    private final @Nullable ClientScheduler timers;

    Announcements(String clientId, @Nullable ClientScheduler timers) {
        this.ownClient = clientId.isEmpty() ? "" : clientId + ":";
        this.timers = timers;
    }

    /** {@code message} was announced on {@code queue}'s channel. */
    void heard(WaiterQueue queue, String message) {
        queue.cancelLook(); // a look scheduled after an earlier announcement is moot: this one says what to do
        TurnMessage turn = queue.wakeUp() == WakeUp.ONE && !ownClient.isEmpty() ? TurnMessage.of(message, ownClient)
                : TurnMessage.OPEN;
        switch (turn) {
            case OPEN -> queue.released(message);
            case MINE, NOT_IN_LINE -> queue.wakeOne();
            case TAKEN_BY_ME -> {
                // this client's own waiters are behind the hold just taken
            }
            case BEHIND -> {
                long lease = TurnMessage.takenLeaseMillis(message);
                if (lease >= 0) {
                    lookAfter(queue, saturatedNanos(lease) + OTHERS_TURN_NANOS);
                }
            }
            case OTHERS_TURN -> lookAfter(queue, OTHERS_TURN_NANOS);
        }
    }

    private static long saturatedNanos(long millis) {
        return millis >= Long.MAX_VALUE / 2_000_000 ? Long.MAX_VALUE / 2 : TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /**
     * One waiter looks after {@code nanos} (once another client's turn has lapsed, or its hold's lease has
     * ended), unless an announcement comes first and cancels the look.
     */
    private void lookAfter(WaiterQueue queue, long nanos) {
        ClientScheduler scheduler = timers;
        if (scheduler == null) {
            queue.wakeOne();
            return;
        }
        try {
            queue.looking(scheduler.schedule(queue::wakeOne, nanos));
        }
        catch (RejectedExecutionException ex) {
            queue.wakeOne(); // closing: the waiter finds out at once
        }
    }
}
