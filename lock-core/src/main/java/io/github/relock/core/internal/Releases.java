package io.github.relock.core.internal;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import io.github.relock.core.LockOperationException;

/**
 * Gives back or hands on a hold, again after an unknown outcome (a reply lost on the network): the
 * release and transfer scripts recognise a repeat of themselves, also after other owners took the lock.
 */
final class Releases {

    /** Attempts for one release whose outcome the network left unknown; they can never count twice. */
    private static final int ATTEMPTS = 3;
    private static final long RETRY_PAUSE_MILLIS = 50;
    /** transfer.lua answered with an error on the first try, so it changed nothing. */
    static final long TRANSFER_REFUSED = -2;

    private final LockKeys keys;
    private final ClientContext context;

    Releases(LockKeys keys, ClientContext context) {
        this.keys = keys;
        this.context = context;
    }

    /** Holds left after giving back one of {@code before}, or -1 if this hold is no longer in Redis. */
    long release(Hold hold, int before) {
        return resend(() -> context.commands().release(keys, hold.ownerBytes(), hold.tokenBytes(), before), null);
    }

    /**
     * Moves the last hold to {@code to}; see {@link LockCommands#transfer}. {@link #TRANSFER_REFUSED} if the
     * first attempt was refused outright, which happens before any write (transfer.lua writes in before out).
     */
    long transfer(Hold hold, ReleaseWaiter.Candidate to, boolean othersFirst) {
        return resend(() -> context.commands().transfer(keys, hold.ownerId(), hold.fencingToken(), to.ownerId(),
                to.leaseMillis(), othersFirst), TRANSFER_REFUSED);
    }

    /** An error reply to the first attempt returns {@code onFirstRefusal}, if given. */
    private long resend(Supplier<Long> script, @Nullable Long onFirstRefusal) {
        DataAccessException failure = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                return Interrupts.uninterruptibly(script);
            }
            catch (RedisConnectionFailureException | QueryTimeoutException ex) {
                failure = ex; // outcome unknown: sending it again is safe
                if (!Interrupts.sleep(RETRY_PAUSE_MILLIS * attempt)) {
                    break;
                }
            }
            catch (DataAccessException ex) {
                if (attempt == 1 && onFirstRefusal != null) {
                    return onFirstRefusal;
                }
                failure = ex; // after an unknown outcome, whether an earlier attempt ran is not known
                break;
            }
        }
        throw new LockOperationException(keys.name(), "Could not release lock '" + keys.name() + "': "
                + RedisFailures.describe(failure) + "; the lock is freed when its lease ends", failure);
    }
}
