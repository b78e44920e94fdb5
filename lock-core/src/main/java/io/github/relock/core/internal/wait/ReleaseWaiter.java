package io.github.relock.core.internal.wait;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * One thread waiting for one lock's release. The thread {@link #arm() arms} before each attempt, so a
 * release announced between the attempt and {@link #await} is not missed.
 *
 * <p>While the thread sleeps in {@link #await}, a thread of the same client that gives back its last
 * hold of the lock may hand the lock straight to it: it {@link #offer() reserves} the sleeper, moves
 * the hold in Redis, then either {@link #grant() grants} it (the waiter wakes holding the lock) or
 * {@link #decline() declines} (the waiter wakes and tries on its own). A reserved waiter does not
 * leave {@link #await} before one of the two, so a hold is never moved to a thread that has gone.
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
    /** How often a reserved waiter looks again; the releaser unparks it anyway. */
    private static final long OFFER_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Told when the waiter leaves, and whether it leaves a wake-up unused (the next waiter should get it). */
    interface Departure {
        void left(ReleaseWaiter waiter, boolean unusedWakeUp);
    }

    private final HandOffStreak streak;
    private final Runnable openCheck;
    private final Departure departure;
    private final @Nullable Candidate candidate;
    private final boolean behindOthers;
    private final String name;
    /** The thread that sleeps in {@link #await}: a releaser unparks it, whichever thread joined. */
    private final Thread thread;
    /** What a wake-up does to an asynchronous waiter, which has no thread asleep; null: unpark the thread. */
    private final @Nullable Runnable onWake;
    private final AtomicBoolean signalled = new AtomicBoolean();
    private final AtomicInteger state = new AtomicInteger(AWAKE);

    /**
     * @param streak    the hand-off streak of the lock waited for
     * @param openCheck throws if the client was closed meanwhile
     */
    ReleaseWaiter(HandOffStreak streak, Runnable openCheck, Departure departure, @Nullable Candidate candidate,
            boolean behindOthers, String name, Thread thread, @Nullable Runnable onWake) {
        this.streak = streak;
        this.thread = thread;
        this.onWake = onWake;
        this.name = name;
        this.openCheck = openCheck;
        this.departure = departure;
        this.candidate = candidate;
        this.behindOthers = behindOthers;
    }

    /** Who waits: the hold's field in Redis, which a fair lock's release announcement names. */
    String name() {
        return name;
    }

    /** Whether other local threads already waited for this lock when this one joined. */
    public boolean behindOthers() {
        return behindOthers;
    }

    public @Nullable Candidate candidate() {
        return candidate;
    }

    public HandOffStreak streak() {
        return streak;
    }

    /** Call before each attempt to take the lock. */
    public void arm() {
        signalled.set(false);
    }

    /**
     * Sleeps until a release is announced, {@code nanos} pass, or the thread is interrupted. A hand-off
     * that reserved this waiter meanwhile is always seen to its end first: {@link #takeGrant()} then
     * tells whether the lock is now this waiter's.
     *
     * @return true if an interrupt ended the sleep; the interrupt status is then cleared and the
     *         caller decides whether to give up or to restore it later
     */
    public boolean await(long nanos) {
        long deadline = System.nanoTime() + nanos;
        boolean interrupted = false;
        state.set(SLEEPING);
        try {
            while (!signalled.get()) {
                openCheck.run();
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                // capped so that a client closed meanwhile is noticed promptly
                LockSupport.parkNanos(this, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
                if (Thread.interrupted()) {
                    interrupted = true;
                    break;
                }
            }
        }
        finally {
            if (!state.compareAndSet(SLEEPING, AWAKE)) {
                // reserved by a releaser: its one script call decides, and the hold must not land on nobody
                while (state.get() == OFFERED) {
                    LockSupport.parkNanos(this, OFFER_POLL_NANOS);
                    interrupted |= Thread.interrupted();
                }
            }
        }
        return interrupted;
    }

    /** After {@link #await}: whether a releaser handed the lock over; its hold is then registered. */
    public boolean takeGrant() {
        return state.compareAndSet(GRANTED, AWAKE);
    }

    /** Releaser side: reserves this waiter for a hand-off; false if it is not asleep or cannot take one. */
    boolean offer() {
        return candidate != null && state.compareAndSet(SLEEPING, OFFERED);
    }

    /** Releaser side: the hold is now this waiter's (and registered). */
    public void grant() {
        signalled.set(true);
        state.set(GRANTED);
        wake();
    }

    /** Releaser side: the hand-off did not happen; the waiter wakes and tries on its own. */
    public void decline() {
        signalled.set(true);
        state.set(AWAKE);
        wake();
    }

    /**
     * An asynchronous waiter, which has no thread asleep in {@link #await}, waits for its next step: a releaser may
     * reserve it from now on.
     */
    public void sleeping() {
        state.compareAndSet(AWAKE, SLEEPING);
    }

    /**
     * An asynchronous waiter's next step begins: false while a releaser has it reserved, whose grant or decline
     * wakes it again (a hold is never moved to a waiter that has gone). After a grant, see {@link #takeGrant()}.
     */
    public boolean stepBegins() {
        return state.compareAndSet(SLEEPING, AWAKE) || state.get() == AWAKE;
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
        if (onWake != null) {
            onWake.run();
        }
        else {
            LockSupport.unpark(thread);
        }
    }

    /** Leaves the wait. A wake-up this waiter got but will not use goes to the next local waiter. */
    @Override
    public void close() {
        departure.left(this, signalled.get());
    }

    void wakeForShutdown() {
        wake();
    }
}
