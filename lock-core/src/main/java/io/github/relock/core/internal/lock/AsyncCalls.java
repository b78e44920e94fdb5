package io.github.relock.core.internal.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.LockOwner;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.hold.OwnerIds;
import io.github.relock.core.internal.kind.LockKeys;

/**
 * The asynchronous calls of one lock handle for one explicit owner: each sends its first round trip and returns;
 * no thread waits for the replies. Arguments are checked before anything starts, so a bad one throws at the call,
 * not in the future.
 */
public final class AsyncCalls {

    /**
     * Where the futures this returns complete: not on the driver's thread that read the reply, which serves every
     * reply of the client's connection (a callback that blocks there, or waits for a lock, would hold up renewals).
     * Always handed to the pool's {@code execute}: {@code CompletableFuture}'s own {@code *Async} methods start a
     * new thread per task instead where the common pool has fewer than two workers (two cores or fewer).
     */
    private static final Executor COMPLETIONS = ForkJoinPool.commonPool();

    private final LockKeys keys;
    private final ClientContext context;
    private final Holder holder;
    private final long maxHoldNanos;

    AsyncCalls(LockKeys keys, ClientContext context, Holder holder, long maxHoldNanos) {
        this.keys = keys;
        this.context = context;
        this.holder = holder;
        this.maxHoldNanos = maxHoldNanos;
    }

    /**
     * The calls of a handle (whose own owner, if it has one, is {@code fixedOwner}) for {@code owner}.
     *
     * @throws IllegalArgumentException if the handle belongs to another owner
     */
    public static AsyncCalls of(LockKeys keys, ClientContext context, OwnerIds.@Nullable Owner fixedOwner, LockOwner owner,
            long maxHoldNanos) {
        Objects.requireNonNull(owner, "owner must not be null");
        if (fixedOwner != null && !fixedOwner.id().equals(owner.id())) {
            throw new IllegalArgumentException("This handle of lock '" + keys.name() + "' belongs to owner '"
                    + fixedOwner.id() + "', not " + owner);
        }
        context.owners().checkMine(owner.id());
        OwnerIds.Owner caller = Objects.requireNonNull(OwnerIds.explicit(owner.id()));
        keys.kind().check(context.holds(), keys, caller.id(), new Holder(caller, null).describe());
        return new AsyncCalls(keys, context, Holder.of(keys, caller, null), maxHoldNanos);
    }

    /** @param leaseTime null: the watchdog renews the hold until it is released */
    public CompletableFuture<Boolean> tryLock(long waitNanos, @Nullable Duration leaseTime) {
        boolean watchdog = leaseTime == null;
        long leaseMillis = watchdog ? context.watchdogLeaseMillis() : Arguments.leaseMillis(leaseTime);
        return start(waitNanos, new AsyncAcquire.Request<>(holder, leaseMillis, watchdog, maxHoldNanos, true, false, null,
                COMPLETIONS));
    }

    /** Waits as long as it takes. @param leaseTime null: the watchdog renews the hold until it is released */
    public CompletableFuture<Void> lock(@Nullable Duration leaseTime) {
        boolean watchdog = leaseTime == null;
        long leaseMillis = watchdog ? context.watchdogLeaseMillis() : Arguments.leaseMillis(leaseTime);
        return start(Long.MAX_VALUE, new AsyncAcquire.Request<Void>(holder, leaseMillis, watchdog,
                maxHoldNanos, null, null, null, COMPLETIONS));
    }

    private <T> CompletableFuture<T> start(long waitNanos, AsyncAcquire.Request<T> request) {
        context.openCheck().run();
        return new AsyncAcquire<>(keys, context, request, waitNanos).start().result();
    }

    /** Runs {@code completion} on {@link #COMPLETIONS}; on the calling thread if the pool refuses it. */
    private static void complete(Runnable completion) {
        try {
            COMPLETIONS.execute(completion);
        }
        catch (RejectedExecutionException ex) {
            completion.run();
        }
    }

    /** Gives back one hold; the result fails as {@code unlock()} would throw. Cancelling it changes nothing. */
    public CompletableFuture<Void> unlock() {
        context.openCheck().run();
        CompletableFuture<Void> result = new CompletableFuture<>();
        context.releases().unlockAsync(keys, holder).whenComplete((unused, failure) -> complete(() -> {
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
