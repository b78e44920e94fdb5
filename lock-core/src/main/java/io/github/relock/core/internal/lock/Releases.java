package io.github.relock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOperationException;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.RedisFailures;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.wait.ReleaseWaiter;

/**
 * Gives back or hands on a hold, again after an unknown outcome (a reply lost on the network): the
 * release and transfer scripts recognise a repeat of themselves, also after other owners took the lock.
 * Every step returns a future; no thread waits for Redis between the attempts.
 */
public final class Releases {

    /** Attempts for one release whose outcome the network left unknown; they can never count twice. */
    private static final int ATTEMPTS = 3;
    private static final long RETRY_PAUSE_MILLIS = 50;

    private final LockKeys keys;
    private final ClientContext context;

    public Releases(LockKeys keys, ClientContext context) {
        this.keys = keys;
        this.context = context;
    }

    /**
     * Gives back one level of {@code holder}'s hold, and waits until Redis took it in.
     *
     * @throws IllegalMonitorStateException if it holds none
     * @throws LockLostException            if its hold is gone (it is told once)
     */
    public void unlock(Holder holder) {
        Waits.await(unlockAsync(holder));
    }

    /** {@link #unlock(Holder)}, whose result fails as that throws. */
    public CompletableFuture<Void> unlockAsync(Holder holder) {
        return context.turns().take(keys, holder, () -> unlockInTurn(holder));
    }

    private CompletableFuture<Void> unlockInTurn(Holder holder) {
        Hold hold = context.holds().get(keys, holder.id());
        if (hold == null) {
            throw new IllegalMonitorStateException("Lock '" + keys.name() + "' is not held by " + holder.describe());
        }
        if (hold.lost()) {
            context.holds().remove(hold);
            throw lost(holder);
        }
        if (hold.count() > hold.stored() && hold.fixedLeaseEnded()) {
            // a level counted in the client, on a lease the local clock saw end: the loss is known, as isLost() says
            context.holds().remove(hold);
            if (hold.markLost()) {
                context.lossReporter().accept(hold);
            }
            throw lost(holder);
        }
        return unlock(hold).thenApply(held -> {
            if (!held) {
                throw lost(holder);
            }
            return null;
        });
    }

    private LockLostException lost(Holder holder) {
        return new LockLostException(keys.name(), keys.lock(), "Lock '" + keys.name() + "' was lost before " + holder.describe()
                + " released it: its lease ran out or it was force-unlocked, so another holder may have run meanwhile");
    }

    /**
     * Gives back one level of {@code hold}, already checked to be held: the last one is handed to a local
     * waiter where the lock's kind allows, or released.
     *
     * @return completes with false if Redis no longer had this hold: it is then reported lost
     */
    public CompletableFuture<Boolean> unlock(Hold hold) {
        int depth = hold.count();
        if (depth > hold.stored()) {
            hold.count(depth - 1); // a level re-entered locally: Redis never counted it
            return CompletableFuture.completedFuture(true);
        }
        int before = hold.stored();
        if (before != 1) {
            return releaseLevel(hold, depth, before);
        }
        // stops renewal before the release (or the hand-off) runs; the hold is still listed as held until it ends
        context.holds().removeForRelease(hold);
        CompletableFuture<Boolean> ended;
        try {
            CompletableFuture<HandOff.Outcome> handedOn = keys.kind().handsOff()
                    ? new HandOff(keys, context, this::transfer).handOn(hold)
                    : CompletableFuture.completedFuture(HandOff.Outcome.NOT_TRIED);
            ended = handedOn.thenCompose(outcome -> outcome != HandOff.Outcome.NOT_TRIED
                    ? CompletableFuture.completedFuture(outcome == HandOff.Outcome.DONE)
                    : releaseLevel(hold, depth, before));
        }
        catch (RuntimeException | Error ex) {
            ended = CompletableFuture.failedFuture(ex);
        }
        return ended.whenComplete((held, failure) -> context.holds().released(hold));
    }

    /** Sends the release of one level of {@code hold}, of {@code before} that Redis counts. */
    private CompletableFuture<Boolean> releaseLevel(Hold hold, int depth, int before) {
        return release(hold, before).handle((left, failure) -> {
            if (failure != null) {
                // the level of nesting ends all the same: the last release frees the hold whatever count is left
                hold.stored(before - 1);
                hold.count(depth - 1);
                throw Waits.rethrown(failure);
            }
            if (left < 0) {
                context.holds().remove(hold);
                if (hold.markLost()) {
                    context.lossReporter().accept(hold); // found by asking Redis: told to the listeners once, too
                }
                return false;
            }
            if (left > 0) {
                hold.stored((int) (long) left);
                // the levels Redis gave back come off the depth: never a level fewer than Redis still counts
                hold.count(Math.max((int) (long) left, depth - (before - (int) (long) left)));
            }
            return true;
        });
    }

    /** Holds left after giving back one of {@code before}, or -1 if this hold is no longer in Redis. */
    public CompletableFuture<Long> release(Hold hold, int before) {
        return resend(() -> keys.kind().release(context.commands(), hold.keys(), hold.ownerBytes(), hold.tokenBytes(),
                before), null);
    }

    /**
     * Moves the last hold to {@code to}; see {@link LockCommands#transfer}. {@link HandOff#TRANSFER_REFUSED} if the
     * first attempt was refused outright, which happens before any write (transfer.lua writes in before out).
     */
    CompletableFuture<Long> transfer(Hold hold, ReleaseWaiter.Candidate to, boolean turnUsedUp) {
        return resend(() -> keys.kind().transfer(context.commands(), keys, hold.ownerId(), hold.fencingToken(),
                to.ownerId(), to.leaseMillis(), turnUsedUp), HandOff.TRANSFER_REFUSED);
    }

    /**
     * Sends {@code script} until its outcome is known, at most {@value #ATTEMPTS} times; an error reply to the
     * first attempt returns {@code onFirstRefusal}, if given. The result fails with a {@link LockOperationException}.
     */
    private CompletableFuture<Long> resend(Supplier<CompletableFuture<Long>> script, @Nullable Long onFirstRefusal) {
        CompletableFuture<Long> result = new CompletableFuture<>();
        send(script, onFirstRefusal, 1, result);
        return result;
    }

    private void send(Supplier<CompletableFuture<Long>> script, @Nullable Long onFirstRefusal, int attempt,
            CompletableFuture<Long> result) {
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
            boolean unknown = ex instanceof RedisConnectionFailureException || ex instanceof QueryTimeoutException;
            if (!unknown && attempt == 1 && onFirstRefusal != null) {
                result.complete(onFirstRefusal);
                return;
            }
            // an unknown outcome: sending it again is safe; an error reply after one: whether an earlier attempt
            // ran is not known, so it is not sent again
            if (unknown && attempt < ATTEMPTS) {
                Runnable again = () -> send(script, onFirstRefusal, attempt + 1, result);
                if (!later(again, RETRY_PAUSE_MILLIS * attempt)) {
                    again.run(); // the client is closing and its scheduler ended: no pause
                }
                return;
            }
            result.completeExceptionally(new LockOperationException(keys.name(), keys.lock(), "Could not release lock '"
                    + keys.name() + "': " + RedisFailures.describe(ex) + "; the lock is freed when its lease ends", ex));
        });
    }

    /** Runs {@code send} after a pause on the client's scheduler; false once that has ended. */
    private boolean later(Runnable send, long millis) {
        try {
            context.scheduler().schedule(send, TimeUnit.MILLISECONDS.toNanos(millis));
            return true;
        }
        catch (RejectedExecutionException closed) {
            return false;
        }
    }
}
