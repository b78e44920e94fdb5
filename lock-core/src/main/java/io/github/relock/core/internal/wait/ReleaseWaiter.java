package io.github.relock.core.internal.wait;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * One wait for one lock's release. The wait {@link #arm() arms} before each attempt, so a release announced
 * between the attempt and the end of the step is not missed; a wake-up runs the wait's next step.
 *
 * <p>While the wait is {@link #sleeping() between steps}, a thread of the same client that gives back its last
 * hold of the lock may hand the lock straight to it: it {@link #offer() reserves} the waiter, moves the hold in
 * Redis, then {@link #grant() grants} it (the waiter's next step finds it holding the lock), {@link #decline()
 * declines} (the waiter tries on its own) or {@link #passOver() passes it over} (the lock went to another waiter
 * first: this one sleeps on). A reserved waiter starts no step before one of the three, so a hold is never moved
 * to a wait that has gone.
 */
public final class ReleaseWaiter implements AutoCloseable {

    /** Who would own the lock if it were handed over: what the hand-off needs to write and to register. */
    public record Candidate(String ownerId, @Nullable String ownerThread, long leaseMillis, boolean watchdog,
            long maxHoldNanos) {
    }

    private static final int AWAKE = 0;
    private static final int SLEEPING = 1;
    private static final int OFFERED = 2;
    private static final int GRANTED = 3;

    /** Told when the waiter leaves, and whether it leaves a wake-up unused (the next waiter should get it). */
    interface Departure {
        void left(ReleaseWaiter waiter, boolean unusedWakeUp);
    }

    private final ClientTurn turn;
    private final Departure departure;
    private final @Nullable Candidate candidate;
    private final String name;
    /** What a wake-up does: runs the wait's next step. */
    private final Runnable onWake;
    private final AtomicBoolean signalled = new AtomicBoolean();
    private final AtomicInteger state = new AtomicInteger(AWAKE);
    /**
     * The token of the hold a release gave this waiter and announced (see
     * {@link io.github.relock.core.internal.kind.WakeUp#GIVEN}); 0: none.
     */
    private final AtomicLong given = new AtomicLong();
    /** A step was due while a releaser had this waiter reserved: {@link #passOver()} starts it then. */
    private volatile boolean dueWhileOffered;

    /**
     * @param turn      this client's turn on the lock waited for
     */
    ReleaseWaiter(ClientTurn turn, Departure departure, @Nullable Candidate candidate,
            String name, Runnable onWake) {
        this.turn = turn;
        this.onWake = onWake;
        this.name = name;
        this.departure = departure;
        this.candidate = candidate;
    }

    /** Who waits: the hold's field in Redis, which a fair lock's release announcement names. */
    String name() {
        return name;
    }


    public @Nullable Candidate candidate() {
        return candidate;
    }

    /** This client's turn on the lock waited for, which a hand-off to this waiter counts in. */
    public ClientTurn turn() {
        return turn;
    }

    /** Call before each attempt to take the lock. */
    public void arm() {
        signalled.set(false);
    }

    /** Whether a releaser handed the lock over; its hold is then registered. */
    public boolean takeGrant() {
        return state.compareAndSet(GRANTED, AWAKE);
    }

    /** A release gave this waiter a hold, and announced it with its fencing token. */
    void given(long token) {
        given.set(token);
    }

    /**
     * The fencing token of the hold a release gave this waiter since this was last asked, or 0. Nothing else is
     * known of that hold: it lasts as long as the waiter's place in Redis, counted from its last attempt.
     */
    public long takeGiven() {
        return given.getAndSet(0);
    }

    /** Releaser side: reserves this waiter for a hand-off; false if it is not asleep or cannot take one. */
    boolean offer() {
        return candidate != null && state.compareAndSet(SLEEPING, OFFERED);
    }

    /** Releaser side: the hold is now this waiter's (and registered). */
    public void grant() {
        dueWhileOffered = false; // this wakes it anyway
        signalled.set(true);
        state.set(GRANTED);
        wake();
    }

    /** Releaser side: the hand-off did not happen; the waiter wakes and tries on its own. */
    public void decline() {
        dueWhileOffered = false; // this wakes it anyway
        signalled.set(true);
        state.set(AWAKE);
        wake();
    }

    /**
     * Releaser side: the lock went to a waiter that comes first (the head of a fair lock's line, or another client
     * in the plain lock's line): this one sleeps on, armed as it was, unless a step fell due meanwhile.
     */
    public void passOver() {
        state.set(SLEEPING);
        if (dueWhileOffered) {
            dueWhileOffered = false;
            wake();
        }
    }

    /** The wait is between steps: a releaser may reserve it from now on. */
    public void sleeping() {
        state.compareAndSet(AWAKE, SLEEPING);
    }

    /**
     * The wait's next step begins: false while a releaser has it reserved, whose grant, decline or pass-over starts
     * it then (a hold is never moved to a wait that has gone). After a grant, see {@link #takeGrant()}.
     */
    public boolean stepBegins() {
        if (state.compareAndSet(SLEEPING, AWAKE) || state.get() == AWAKE) {
            return true;
        }
        dueWhileOffered = true;
        // a releaser that passed this waiter over meanwhile may not have seen the flag: then the step begins now
        if (state.compareAndSet(SLEEPING, AWAKE)) {
            dueWhileOffered = false;
            return true;
        }
        return false;
    }

    /** Wakes this waiter if it is armed; false if it already was woken, so the next one should be. */
    boolean signal() {
        if (signalled.compareAndSet(false, true)) {
            wake();
            return true;
        }
        return false;
    }

    private void wake() {
        onWake.run();
    }

    /**
     * Leaves the wait. A wake-up this waiter got but will not use goes to the next local waiter; from here on it
     * takes no more, so a release announced while it is still in the lock's queue wakes the next one instead.
     */
    @Override
    public void close() {
        departure.left(this, signalled.getAndSet(true));
    }

    void wakeForShutdown() {
        wake();
    }
}
