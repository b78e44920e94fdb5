package io.github.relock.core.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread waiting for one lock's release. The thread {@link #arm() arms} before each attempt, so a
 * release announced between the attempt and {@link #await} is not missed.
 */
public final class ReleaseWaiter implements AutoCloseable {

    private final ReleaseSubscriptions subscriptions;
    private final ReleaseSubscriptions.Channel channel;
    private final Thread thread = Thread.currentThread();
    private final AtomicBoolean signalled = new AtomicBoolean();

    ReleaseWaiter(ReleaseSubscriptions subscriptions, ReleaseSubscriptions.Channel channel) {
        this.subscriptions = subscriptions;
        this.channel = channel;
    }

    /** Call before each attempt to take the lock. */
    public void arm() {
        signalled.set(false);
    }

    /**
     * Sleeps until a release is announced, {@code nanos} pass, or the thread is interrupted.
     *
     * @return true if an interrupt ended the sleep; the interrupt status is then cleared and the
     *         caller decides whether to give up or to restore it later
     */
    public boolean await(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!signalled.get()) {
            subscriptions.ensureOpen();
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            // capped so that a client closed meanwhile is noticed promptly
            LockSupport.parkNanos(this, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
            if (Thread.interrupted()) {
                return true;
            }
        }
        return false;
    }

    /** Wakes this waiter if it is armed; false if it already was woken, so the next one should be. */
    boolean signal() {
        if (signalled.compareAndSet(false, true)) {
            LockSupport.unpark(thread);
            return true;
        }
        return false;
    }

    /** Leaves the wait. A wake-up this waiter got but will not use goes to the next local waiter. */
    @Override
    public void close() {
        subscriptions.leave(this, channel, signalled.get());
    }

    void wakeForShutdown() {
        LockSupport.unpark(thread);
    }
}
