package io.github.relock.core.internal.lock;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOperationException;
import io.github.relock.core.internal.command.Interrupts;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.RedisFailures;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.wait.ReleaseWaiter;

/**
 * Gives back or hands on a hold, again after an unknown outcome (a reply lost on the network): the
 * release and transfer scripts recognise a repeat of themselves, also after other owners took the lock.
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
     * Gives back one level of {@code holder}'s hold.
     *
     * @throws IllegalMonitorStateException if it holds none
     * @throws LockLostException            if its hold is gone (it is told once)
     */
    public void unlock(Holder holder) {
        context.turns().take(keys, holder, () -> {
            unlockInTurn(holder);
            return null;
        });
    }

    private void unlockInTurn(Holder holder) {
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
        if (!unlock(hold)) {
            throw lost(holder);
        }
    }

    private LockLostException lost(Holder holder) {
        return new LockLostException(keys.name(), keys.lock(), "Lock '" + keys.name() + "' was lost before " + holder.describe()
                + " released it: its lease ran out or it was force-unlocked, so another holder may have run meanwhile");
    }

    /**
     * Gives back one level of {@code hold}, already checked to be held: the last one is handed to a local
     * waiter where the lock's kind allows, or released.
     *
     * @return false if Redis no longer had this hold: it is then reported lost
     */
    public boolean unlock(Hold hold) {
        int depth = hold.count();
        if (depth > hold.stored()) {
            hold.count(depth - 1); // a level re-entered locally: Redis never counted it
            return true;
        }
        int before = hold.stored();
        if (before == 1) {
            // stops renewal before the release (or the hand-off) runs; the hold is still listed as held until it ends
            context.holds().removeForRelease(hold);
            try {
                HandOff.Outcome handedOn = keys.kind().handsOff() ? new HandOff(keys, context, this::transfer).handOn(hold)
                        : HandOff.Outcome.NOT_TRIED;
                if (handedOn != HandOff.Outcome.NOT_TRIED) {
                    return handedOn == HandOff.Outcome.DONE;
                }
                return releaseLevel(hold, depth, before);
            }
            finally {
                context.holds().released(hold);
            }
        }
        return releaseLevel(hold, depth, before);
    }

    /** Sends the release of one level of {@code hold}, of {@code before} that Redis counts. */
    private boolean releaseLevel(Hold hold, int depth, int before) {
        long left;
        try {
            left = release(hold, before);
        }
        catch (LockOperationException ex) {
            // the level of nesting ends all the same: the last release frees the hold whatever count is left
            hold.stored(before - 1);
            hold.count(depth - 1);
            throw ex;
        }
        if (left < 0) {
            context.holds().remove(hold);
            if (hold.markLost()) {
                context.lossReporter().accept(hold); // found by asking Redis: told to the listeners once, too
            }
            return false;
        }
        if (left > 0) {
            hold.stored((int) left);
            // the levels Redis gave back come off the depth: never a level fewer than Redis still counts
            hold.count(Math.max((int) left, depth - (before - (int) left)));
        }
        return true;
    }

    /** Holds left after giving back one of {@code before}, or -1 if this hold is no longer in Redis. */
    public long release(Hold hold, int before) {
        return resend(() -> context.commands().await(
                keys.kind().release(context.commands(), hold.keys(), hold.ownerBytes(), hold.tokenBytes(), before)), null);
    }

    /**
     * Moves the last hold to {@code to}; see {@link LockCommands#transfer}. {@link HandOff#TRANSFER_REFUSED} if the
     * first attempt was refused outright, which happens before any write (transfer.lua writes in before out).
     */
    long transfer(Hold hold, ReleaseWaiter.Candidate to, boolean othersFirst) {
        return resend(() -> context.commands().await(context.commands().transfer(keys, hold.ownerId(),
                hold.fencingToken(), to.ownerId(), to.leaseMillis(), othersFirst)), HandOff.TRANSFER_REFUSED);
    }

    /** An error reply to the first attempt returns {@code onFirstRefusal}, if given. */
    private long resend(Supplier<Long> script, @Nullable Long onFirstRefusal) {
        DataAccessException failure = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                return Interrupts.uninterruptibly(script);
            }
            catch (RedisConnectionFailureException | QueryTimeoutException ex) {
                failure = ex; // outcome unknown: sending it again is safe, and an interrupt must not leave it unknown
                Interrupts.pause(RETRY_PAUSE_MILLIS * attempt);
            }
            catch (DataAccessException ex) {
                if (attempt == 1 && onFirstRefusal != null) {
                    return onFirstRefusal;
                }
                failure = ex; // after an unknown outcome, whether an earlier attempt ran is not known
                break;
            }
        }
        throw new LockOperationException(keys.name(), keys.lock(), "Could not release lock '" + keys.name() + "': "
                + RedisFailures.describe(failure) + "; the lock is freed when its lease ends", failure);
    }
}
