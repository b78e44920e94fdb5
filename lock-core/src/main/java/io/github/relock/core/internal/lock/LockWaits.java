package io.github.relock.core.internal.lock;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.redis.ClientScheduler;
import io.github.relock.core.internal.wait.ReleaseSubscriptions;
import io.github.relock.core.internal.wait.ReleaseWaiter;

/**
 * Starts the waits for one client's locks: each an {@link AsyncAcquire}, given the client's services it runs on.
 */
public final class LockWaits {

    private final Acquisitions acquisitions;
    private final Releases releases;
    private final ReleaseSubscriptions subscriptions;
    /** The client's timer thread: runs the waits' timers. */
    private final ClientScheduler scheduler;
    /** Throws if the client is closed. */
    private final Runnable openCheck;
    /** Whether acquisitions wait for replicas: a hold moved by a local releaser would then skip its WAIT. */
    private final boolean awaitsReplicas;

    public LockWaits(Acquisitions acquisitions, Releases releases, ReleaseSubscriptions subscriptions,
            ClientScheduler scheduler, Runnable openCheck, LockCommands commands) {
        this.acquisitions = acquisitions;
        this.releases = releases;
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        this.openCheck = openCheck;
        this.awaitsReplicas = commands.awaitsReplicas();
    }

    /**
     * Starts a wait of up to {@code waitNanos} (0: one attempt) for a handle's holder of lock {@code keys}, which a
     * local releaser may hand the lock to if it is {@code candidate} (null: nobody); the result says whether the
     * lock is held.
     */
    public AsyncAcquire.Started<Boolean> tryAcquire(LockKeys keys, Holder holder, long leaseMillis, boolean watchdog,
            long maxHoldNanos, long waitNanos, ReleaseWaiter.@Nullable Candidate candidate) {
        // with minReplicas a moved hold would skip its WAIT: such waiters only ever take the lock themselves
        ReleaseWaiter.Candidate handedTo = awaitsReplicas ? null : candidate;
        return start(keys, new AsyncAcquire.Request<>(holder, leaseMillis, watchdog, maxHoldNanos, true, false,
                handedTo, Runnable::run), waitNanos);
    }

    /**
     * Sends the first attempt of a wait of up to {@code waitNanos} for lock {@code keys} and returns at once; see
     * {@link AsyncAcquire#start()}.
     */
    <T> AsyncAcquire.Started<T> start(LockKeys keys, AsyncAcquire.Request<T> request, long waitNanos) {
        return new AsyncAcquire<>(keys, request, waitNanos, acquisitions, releases, subscriptions, scheduler,
                openCheck).start();
    }
}
