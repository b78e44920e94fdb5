package io.github.relock.core.internal.wait;

import java.util.concurrent.TimeUnit;

/**
 * How much of its turn on one lock this client has used. While a client has the lock, its threads pass it
 * to each other by hand-off; its turn lasts {@link #MAX_HAND_OFFS} hand-offs or {@link #MAX_NANOS}, whichever
 * comes first. Once it is used up, the next hand-off gives the lock to the first other client in the lock's
 * line instead, if there is one, and puts this client at the back of the line (transfer.lua).
 */
public final class ClientTurn {

    /** Hand-offs in one turn: most of the saving of a hand-off, while other clients wait a few turns at most. */
    static final int MAX_HAND_OFFS = 8;
    /** Or this long since the turn began: long critical sections must not hold other clients off for N of them. */
    static final long MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private int count; // guarded by this
    private long startedAt; // guarded by this

    /** Whether the turn is used up: the next hand-off lets the line go first. */
    public synchronized boolean usedUp(long now) {
        return count >= MAX_HAND_OFFS || count > 0 && now - startedAt >= MAX_NANOS;
    }

    /** The lock went to a thread of this client by hand-off. */
    public synchronized void handedOff(long now) {
        if (count++ == 0) {
            startedAt = now;
        }
    }

    /** The lock left the client (to the line, or with nobody here asleep): the next turn starts from zero. */
    public synchronized void ended() {
        count = 0;
    }
}
