package io.github.relock.core.internal.wait;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.kind.WakeUp;

/**
 * The local threads waiting for one lock, behind its release channel. A release wakes one of them; a
 * releaser of this client may reserve one that sleeps for a hand-off instead.
 */
final class WaiterQueue {

    final String channel;
    private final WakeUp wakeUp;
    final ClientTurn turn = new ClientTurn();
    private final Queue<ReleaseWaiter> waiters = new ConcurrentLinkedQueue<>();
    /** Joiners count in under {@link #lock}, from the start of their join; a waiter leaves without it. */
    private final AtomicInteger members = new AtomicInteger();
    /** The unsubscribe of the queue this one follows on the channel: its subscribe is sent only after it. */
    final CompletableFuture<?> after;
    /** Guards the fields below; held briefly, never while Redis is awaited. */
    final ReentrantLock lock = new ReentrantLock();
    /** The last subscribe of this channel, with the connection generation it is on once confirmed; null: none. */
    @Nullable CompletableFuture<Long> subscription;
    /** Being unsubscribed after its last waiter left: a joiner must start a new queue. */
    boolean retired;
    /** When the last waiter left, for the idle check of {@link IdleChannels}. */
    long idleSinceNanos;
    /** Whether an idle check of {@link IdleChannels} is scheduled. */
    boolean idleCheckPending;

    WaiterQueue(String channel, WakeUp wakeUp, CompletableFuture<?> after) {
        this.channel = channel;
        this.wakeUp = wakeUp;
        this.after = after;
    }

    /** Whether Redis confirmed this channel on connection {@code generation} (0: none alive). Under {@link #lock}. */
    boolean subscribedOn(long generation) {
        CompletableFuture<Long> last = subscription;
        return generation != 0 && last != null && last.isDone() && !last.isCompletedExceptionally()
                && last.join() == generation;
    }

    /** The look scheduled after the last announcement, if it asked for one; the next announcement cancels it. */
    private final AtomicReference<Future<?>> look = new AtomicReference<>();

    /** Keeps {@code scheduled} as the one pending look, cancelling the one before (moot since). */
    void looking(Future<?> scheduled) {
        Future<?> before = look.getAndSet(scheduled);
        if (before != null) {
            before.cancel(false);
        }
    }

    /** A new announcement came, or the queue is retired: a pending look is moot. */
    void cancelLook() {
        Future<?> pending = look.getAndSet(null);
        if (pending != null) {
            pending.cancel(false);
        }
    }

    int members() {
        return members.get();
    }

    /** Counts a joiner in (under {@link #lock}). */
    void joined() {
        members.incrementAndGet();
    }

    /** Counts a waiter out; returns how many are left. */
    int left() {
        return members.decrementAndGet();
    }

    WakeUp wakeUp() {
        return wakeUp;
    }

    /** A release was announced; {@code message} says whom it is for, as {@link #wakeUp} reads it. */
    void released(String message) {
        switch (wakeUp) {
            case ONE -> wakeOne();
            case NAMED -> wakeNamed(message);
            case GIVEN -> wakeGiven(message);
        }
    }

    /** Wakes the waiter {@code name} names; none here: another client's turn. An empty name wakes all. */
    private void wakeNamed(String name) {
        if (name.isEmpty()) {
            wakeAll();
            return;
        }
        for (ReleaseWaiter waiter : waiters) {
            if (waiter.name().equals(name)) {
                waiter.signal();
                return;
            }
        }
    }

    /**
     * Wakes the waiters that {@code message} lists (see {@link GivenHolds}), each told its hold's token first;
     * none here: those let in wait in other clients. A message that lists nobody wakes all.
     */
    private void wakeGiven(String message) {
        Map<String, Long> given = message.isEmpty() ? null : GivenHolds.parse(message);
        if (given == null) {
            wakeAll();
            return;
        }
        for (ReleaseWaiter waiter : waiters) {
            Long token = given.get(waiter.name());
            if (token != null) {
                waiter.given(token); // before the wake-up: the step it starts takes the hold up
                waiter.signal();
            }
        }
    }

    void add(ReleaseWaiter waiter) {
        waiters.add(waiter);
    }

    void remove(ReleaseWaiter waiter) {
        waiters.remove(waiter);
    }

    /** Wakes the first waiter that is armed; one release, one attempt. */
    void wakeOne() {
        for (ReleaseWaiter waiter : waiters) {
            if (waiter.signal()) {
                return;
            }
        }
    }

    void wakeAll() {
        for (ReleaseWaiter waiter : waiters) {
            waiter.signal();
        }
    }

    void wakeForShutdown() {
        waiters.forEach(ReleaseWaiter::wakeForShutdown);
    }

    /** A waiter asleep on this lock, reserved for a hand-off, or null; none ends the client's turn. */
    @Nullable ReleaseWaiter reserveSleeper() {
        for (ReleaseWaiter waiter : waiters) {
            if (waiter.offer()) {
                return waiter;
            }
        }
        turn.ended();
        return null;
    }
}
