package io.github.relock.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * One waiter's join of its lock's release channel, run on the client's {@link PubSubLane}: opening the pub/sub
 * connection and subscribing wait for Redis, which may not answer for the whole command timeout, while the
 * waiter keeps its own deadline and goes on trying the lock meanwhile. Used by one waiter at a time.
 */
final class JoinWithin {

    private final LockKeys keys;
    private final CompletableFuture<ReleaseWaiter> joined = new CompletableFuture<>();
    /** Whether the waiter took the outcome (or gave it up): else a waiter joined late must leave by itself. */
    private boolean taken;
    /** Set when the waiter gave up: a join still queued behind an unanswered call is then not sent at all. */
    private volatile boolean abandoned;

    /**
     * Starts the join. {@code onWake}: what a release does to an asynchronous waiter (null: unpark the calling
     * thread, which sleeps in the waiter); {@code onDone}, which must not block, is told when the join ends.
     */
    JoinWithin(LockKeys keys, ClientContext context, ReleaseWaiter.@Nullable Candidate candidate, String name,
            @Nullable Runnable onWake, Runnable onDone) {
        this.keys = keys;
        Thread sleeper = Thread.currentThread();
        ReleaseSubscriptions subscriptions = context.subscriptions();
        try {
            subscriptions.lane().execute(() -> {
                if (abandoned) {
                    joined.cancel(false);
                    return;
                }
                try {
                    joined.complete(subscriptions.join(keys.channel(), candidate, keys.kind().wakeUp(), name, sleeper,
                            onWake));
                }
                catch (Throwable ex) {
                    joined.completeExceptionally(ex);
                }
            });
        }
        catch (RejectedExecutionException ex) {
            joined.completeExceptionally(new IllegalStateException("The RedisLockClient was closed while this "
                    + "thread waited for lock '" + keys.name() + "'", ex));
        }
        joined.whenComplete((waiter, failure) -> onDone.run());
    }

    /** A join for the calling thread, which it unparks when it ends. */
    static JoinWithin forThisThread(LockKeys keys, ClientContext context, ReleaseWaiter.@Nullable Candidate candidate,
            String name) {
        Thread thread = Thread.currentThread();
        return new JoinWithin(keys, context, candidate, name, null, () -> LockSupport.unpark(thread));
    }

    /**
     * Sleeps until the join ends, {@code nanos} pass or an interrupt comes.
     *
     * @return true if an interrupt ended the sleep; its status is then cleared, for the caller to decide
     */
    boolean await(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!joined.isDone()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                return true;
            }
        }
        return false;
    }

    boolean pending() {
        return !joined.isDone();
    }

    /**
     * The waiter, once joined; null while the join is under way, or if Redis did not answer (a new join is then
     * needed). An error reply ends the wait with {@link io.github.relock.core.LockOperationException}; a client
     * closed meanwhile with {@link IllegalStateException}.
     */
    @Nullable ReleaseWaiter take() {
        if (!joined.isDone()) {
            return null;
        }
        taken = true;
        try {
            return joined.join();
        }
        catch (CompletionException ex) {
            Throwable cause = ex.getCause();
            if (cause instanceof DataAccessException failure) {
                return AcquireLoop.unsubscribed(keys, failure);
            }
            if (cause instanceof RuntimeException failure) {
                throw failure;
            }
            if (cause instanceof Error failure) {
                throw failure;
            }
            throw ex;
        }
    }

    /** The wait ends without what this join brings: a waiter that joins later leaves at once. */
    void abandon() {
        if (!taken) {
            taken = true;
            abandoned = true;
            joined.thenAccept(ReleaseWaiter::close);
        }
    }
}
