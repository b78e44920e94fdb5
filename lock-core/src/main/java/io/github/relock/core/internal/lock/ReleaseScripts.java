package io.github.relock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import io.github.relock.core.LockOperationException;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.RedisFailures;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.redis.ClientScheduler;
import io.github.relock.core.internal.wait.ReleaseWaiter;

/**
 * Sends one client's release and transfer scripts until their outcome is known, again after a reply lost on the
 * network: the scripts recognise a repeat of themselves, also after other owners took the lock. Every step returns
 * a future; no thread waits for Redis between the attempts.
 */
public final class ReleaseScripts {

    /** Attempts for one release whose outcome the network left unknown; they can never count twice. */
    private static final int ATTEMPTS = 3;
    private static final long RETRY_PAUSE_MILLIS = 50;

    private final LockCommands commands;
    /** Where the pauses between attempts run: the client's timer thread. */
    private final ClientScheduler scheduler;

    public ReleaseScripts(LockCommands commands, ClientScheduler scheduler) {
        this.commands = commands;
        this.scheduler = scheduler;
    }

    /** Holds left after giving back one of {@code before}, or -1 if this hold of lock {@code keys} is no longer in Redis. */
    public CompletableFuture<Long> release(LockKeys keys, Hold hold, int before) {
        return resend(keys, () -> keys.kind().release(commands, hold.keys(), hold.ownerBytes(), hold.tokenBytes(),
                before), null);
    }

    /**
     * Moves the last hold to {@code to}; see {@link LockCommands#transfer}. {@link HandOff#TRANSFER_REFUSED} if the
     * first attempt was refused outright, which happens before any write (transfer.lua writes in before out).
     */
    public CompletableFuture<Long> transfer(LockKeys keys, Hold hold, ReleaseWaiter.Candidate to, boolean turnUsedUp) {
        return resend(keys, () -> keys.kind().transfer(commands, keys, hold.ownerId(), hold.fencingToken(),
                to.ownerId(), to.leaseMillis(), turnUsedUp), HandOff.TRANSFER_REFUSED);
    }

    /**
     * Sends {@code script} until its outcome is known, at most {@value #ATTEMPTS} times; an error reply to the
     * first attempt returns {@code onFirstRefusal}, if given. The result fails with a {@link LockOperationException}.
     */
    private CompletableFuture<Long> resend(LockKeys keys, Supplier<CompletableFuture<Long>> script,
            @Nullable Long onFirstRefusal) {
        CompletableFuture<Long> result = new CompletableFuture<>();
        send(keys, script, onFirstRefusal, 1, result);
        return result;
    }

    private void send(LockKeys keys, Supplier<CompletableFuture<Long>> script, @Nullable Long onFirstRefusal,
            int attempt, CompletableFuture<Long> result) {
        CompletableFuture<Long> reply;
        try {
            reply = script.get();
        }
        catch (RuntimeException ex) {
            reply = CompletableFuture.failedFuture(ex);
        }
        reply.whenComplete((left, failure) -> {
            if (failure == null) {
                result.complete(left);
                return;
            }
            Throwable cause = Waits.unwrapped(failure);
            if (!(cause instanceof DataAccessException ex)) {
                result.completeExceptionally(cause);
                return;
            }
            boolean unknown = RedisFailures.outcomeUnknown(ex);
            if (!unknown && attempt == 1 && onFirstRefusal != null) {
                result.complete(onFirstRefusal);
                return;
            }
            // an unknown outcome: sending it again is safe; an error reply after one: whether an earlier attempt
            // ran is not known, so it is not sent again
            if (unknown && attempt < ATTEMPTS) {
                Runnable again = () -> send(keys, script, onFirstRefusal, attempt + 1, result);
                if (!later(again, RETRY_PAUSE_MILLIS * attempt)) {
                    again.run(); // the client is closing and its scheduler ended: no pause
                }
                return;
            }
            result.completeExceptionally(new LockOperationException(keys.name(), keys.lock(), "Could not release lock '"
                    + keys.name() + "': " + RedisFailures.describe(ex) + "; the lock is freed when its lease ends", ex));
        });
    }

    /**
     * Runs {@code send} after a pause on the client's scheduler, or at once when the client closes first (the release's
     * future must end, and the scheduler runs no timer after it closed); false once the scheduler has ended.
     */
    private boolean later(Runnable send, long millis) {
        try {
            scheduler.scheduleSend(send, TimeUnit.MILLISECONDS.toNanos(millis), send);
            return true;
        }
        catch (RejectedExecutionException closed) {
            return false;
        }
    }
}
