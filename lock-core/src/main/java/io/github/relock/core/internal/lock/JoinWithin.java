package io.github.relock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

import io.github.relock.core.LockOperationException;
import io.github.relock.core.internal.command.RedisFailures;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.wait.ReleaseSubscriptions;
import io.github.relock.core.internal.wait.ReleaseWaiter;

/**
 * One waiter's join of its lock's release channel, under way while the waiter keeps its own deadline and goes on
 * trying the lock: no thread waits for Redis's confirmation of the subscribe, which may not come for the whole
 * command timeout ({@link ReleaseSubscriptions#joinAsync}). Used by one waiter at a time.
 */
public final class JoinWithin {

    private static final Logger log = LoggerFactory.getLogger(JoinWithin.class);

    private final LockKeys keys;
    private final CompletableFuture<ReleaseWaiter> joined;
    /** Whether the waiter took the outcome (or gave it up): else a waiter joined late must leave by itself. */
    private boolean taken;

    /**
     * Starts the join. {@code onWake}: what a release does to the wait; {@code onDone}, which must not block, is told
     * when the join ends.
     */
    JoinWithin(LockKeys keys, ReleaseSubscriptions subscriptions, ReleaseWaiter.@Nullable Candidate candidate,
            String name, Runnable onWake, Runnable onDone) {
        this.keys = keys;
        CompletableFuture<ReleaseWaiter> joining;
        try {
            joining = subscriptions.joinAsync(keys.channel(), candidate, keys.kind().wakeUp(), name, onWake);
        }
        catch (RuntimeException ex) {
            joining = CompletableFuture.failedFuture(ex);
        }
        this.joined = joining;
        joined.whenComplete((waiter, failure) -> onDone.run());
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
                return unsubscribed(keys, failure);
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
            joined.thenAccept(ReleaseWaiter::close);
        }
    }

    /** A failed subscription: null (wait without one) if Redis did not answer, else the wait's failure. */
    static @Nullable ReleaseWaiter unsubscribed(LockKeys keys, DataAccessException ex) {
        if (!RedisFailures.refused(ex)) {
            log.debug("Could not subscribe to the releases of lock '{}'; looking again in a moment", keys.name(), ex);
            return null;
        }
        throw new LockOperationException(keys.name(), keys.lock(), "Could not wait for lock '" + keys.name()
                + "' (the subscription failed): " + RedisFailures.describe(ex), ex);
    }
}
