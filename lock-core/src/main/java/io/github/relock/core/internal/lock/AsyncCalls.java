package io.github.relock.core.internal.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.LockOwner;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.hold.OwnerIds;
import io.github.relock.core.internal.kind.LockKeys;

/**
 * The asynchronous calls of one client's lock handles, each for one explicit owner: each sends its first round trip
 * and returns; no thread waits for the replies. Arguments are checked before anything starts, so a bad one throws at
 * the call, not in the future.
 */
public final class AsyncCalls {

    private final OwnerIds owners;
    private final HoldRegistry holds;
    private final LockWaits waits;
    private final Releases releases;
    /** Throws if the client is closed. */
    private final Runnable openCheck;
    /** The lease of holds the watchdog renews. */
    private final long watchdogLeaseMillis;
    /**
     * Where the futures this returns complete: not the driver's thread that read the reply, which serves every reply
     * of the client's connection (renewals included). Always handed to its {@code execute}: {@code
     * CompletableFuture}'s own {@code *Async} methods start a new thread per task instead of using a common pool of
     * fewer than two workers (two cores or fewer).
     */
    private final Executor completions;

    public AsyncCalls(OwnerIds owners, HoldRegistry holds, LockWaits waits, Releases releases, Runnable openCheck,
            long watchdogLeaseMillis, Executor completions) {
        this.owners = owners;
        this.holds = holds;
        this.waits = waits;
        this.releases = releases;
        this.openCheck = openCheck;
        this.watchdogLeaseMillis = watchdogLeaseMillis;
        this.completions = completions;
    }

    /**
     * The holder of lock {@code keys} that calls of a handle (whose own owner, if it has one, is {@code fixedOwner})
     * make for {@code owner}.
     *
     * @throws IllegalArgumentException if the handle belongs to another owner
     */
    public Holder caller(LockKeys keys, OwnerIds.@Nullable Owner fixedOwner, LockOwner owner) {
        Objects.requireNonNull(owner, "owner must not be null");
        if (fixedOwner != null && !fixedOwner.id().equals(owner.id())) {
            throw new IllegalArgumentException("This handle of lock '" + keys.name() + "' belongs to owner '"
                    + fixedOwner.id() + "', not " + owner);
        }
        owners.checkMine(owner.id());
        OwnerIds.Owner caller = Objects.requireNonNull(OwnerIds.explicit(owner.id()));
        keys.kind().check(holds, keys, caller.id(), new Holder(caller, null).describe());
        return Holder.of(keys, caller, null);
    }

    /**
     * @param maxHoldNanos how long a first acquisition may be held at most; 0: no limit
     * @param leaseTime    null: the watchdog renews the hold until it is released
     */
    public CompletableFuture<Boolean> tryLock(LockKeys keys, Holder holder, long maxHoldNanos, long waitNanos,
            @Nullable Duration leaseTime) {
        boolean watchdog = leaseTime == null;
        long leaseMillis = watchdog ? watchdogLeaseMillis : Arguments.leaseMillis(leaseTime);
        return start(keys, waitNanos, new AsyncAcquire.Request<>(holder, leaseMillis, watchdog, maxHoldNanos, true,
                false, null, completions));
    }

    /**
     * Waits as long as it takes.
     *
     * @param maxHoldNanos how long a first acquisition may be held at most; 0: no limit
     * @param leaseTime    null: the watchdog renews the hold until it is released
     */
    public CompletableFuture<Void> lock(LockKeys keys, Holder holder, long maxHoldNanos, @Nullable Duration leaseTime) {
        boolean watchdog = leaseTime == null;
        long leaseMillis = watchdog ? watchdogLeaseMillis : Arguments.leaseMillis(leaseTime);
        return start(keys, Long.MAX_VALUE, new AsyncAcquire.Request<Void>(holder, leaseMillis, watchdog,
                maxHoldNanos, null, null, null, completions));
    }

    private <T> CompletableFuture<T> start(LockKeys keys, long waitNanos, AsyncAcquire.Request<T> request) {
        try {
            openCheck.run();
        }
        catch (IllegalStateException closed) {
            return CompletableFuture.failedFuture(closed); // as documented: in the future, not at the call
        }
        return waits.start(keys, request, waitNanos).result();
    }

    /** Runs {@code completion} on {@link #completions}; on the calling thread once the client is closed. */
    private void complete(Runnable completion) {
        try {
            completions.execute(completion);
        }
        catch (RejectedExecutionException ex) {
            completion.run();
        }
    }

    /** Gives back one hold; the result fails as {@code unlock()} would throw. Cancelling it changes nothing. */
    public CompletableFuture<Void> unlock(LockKeys keys, Holder holder) {
        try {
            openCheck.run();
        }
        catch (IllegalStateException closed) {
            return CompletableFuture.failedFuture(closed);
        }
        CompletableFuture<Void> result = new CompletableFuture<>();
        releases.unlockAsync(keys, holder).whenComplete((unused, failure) -> complete(() -> {
            if (failure != null) {
                result.completeExceptionally(Waits.unwrapped(failure));
            }
            else {
                result.complete(null);
            }
        }));
        return result;
    }
}
