package io.github.relock.core.internal.wait;

import java.util.concurrent.TimeUnit;

/**
 * Consecutive hand-offs of one lock between threads of one client, and the client's turn to step back.
 * A hand-off keeps the lock inside the client, so the streak is bounded: once it is used up, the next
 * hand-off frees the lock instead if another client waits for it, and this client's threads then leave
 * the lock alone for a moment so that the other client's woken waiter can take it first.
 */
public final class HandOffStreak {

    /** Hand-offs in a row before other clients come first: most of the saving, while they wait a few turns at most. */
    static final int MAX_HAND_OFFS = 8;
    /** Or this long since the streak began: long critical sections must not hold other clients off for N of them. */
    static final long MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** After freeing it for others: about a pub/sub delivery plus a round trip, so their waiter gets there first. */
    static final long STEP_BACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private int count; // guarded by this
    private long startedAt; // guarded by this
    private volatile long stepBackUntil = System.nanoTime();

    /** Whether other clients should get the lock first now. */
    public synchronized boolean usedUp(long now) {
        return count >= MAX_HAND_OFFS || count > 0 && now - startedAt >= MAX_NANOS;
    }

    public synchronized void handedOff(long now) {
        if (count++ == 0) {
            startedAt = now;
        }
    }

    /** The lock left the client with nobody local asleep: the next streak starts from zero. */
    synchronized void reset() {
        count = 0;
    }

    /** The lock was freed for the other clients: start over, after stepping back. */
    public synchronized void freedForOthers(long now) {
        count = 0;
        stepBackUntil = now + STEP_BACK_NANOS;
    }

    /** How long this client's threads should still leave the lock alone (0: not stepping back). */
    long stepBackNanos(long now) {
        return Math.max(0, stepBackUntil - now);
    }
}
