package io.github.relock.core.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The local threads waiting for one lock, behind its release channel. A release wakes one of them; a
 * releaser of this client may reserve one that sleeps for a hand-off instead.
 */
final class WaiterQueue {

    final String channel;
    /** Whether a release wakes every waiter (all may go) rather than one. */
    private final boolean wakesAll;
    final HandOffStreak streak = new HandOffStreak();
    private final Queue<ReleaseWaiter> waiters = new ConcurrentLinkedQueue<>();
    /** Guards the fields below; held while (un)subscribing this channel, and for nothing else. */
    final ReentrantLock lock = new ReentrantLock();
    int members;
    /** The connection generation this channel is subscribed on; 0: not subscribed. */
    long subscribedOn;
    /** Unsubscribed after its last waiter left: a joiner must start a new queue. */
    boolean retired;

    WaiterQueue(String channel, boolean wakesAll) {
        this.channel = channel;
        this.wakesAll = wakesAll;
    }

    /** A release was announced. */
    void released() {
        if (wakesAll) {
            wakeAll();
        }
        else {
            wakeOne();
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

    /** A waiter asleep on this lock, reserved for a hand-off, or null; none resets the hand-off streak. */
    @Nullable ReleaseWaiter reserveSleeper() {
        for (ReleaseWaiter waiter : waiters) {
            if (waiter.offer()) {
                return waiter;
            }
        }
        streak.reset();
        return null;
    }
}
