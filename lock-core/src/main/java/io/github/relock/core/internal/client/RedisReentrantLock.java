package io.github.relock.core.internal.client;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockOperationException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.RedisFailures;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.hold.OwnerIds;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.kind.LockKind;
import io.github.relock.core.internal.lock.Acquisitions;
import io.github.relock.core.internal.lock.Arguments;
import io.github.relock.core.internal.lock.AsyncAcquire;
import io.github.relock.core.internal.lock.AsyncCalls;
import io.github.relock.core.internal.lock.LockWaits;
import io.github.relock.core.internal.lock.Releases;
import io.github.relock.core.internal.lock.Waits;
import io.github.relock.core.internal.settings.SettingRules;
import io.github.relock.core.internal.wait.ReleaseWaiter;

/**
 * A handle on one lock, owned by the calling thread or by one explicit owner: the API, put together from the
 * client's services, built once per client: the waits ({@link LockWaits}), the round trips ({@link Acquisitions}),
 * the releases and hand-offs ({@link Releases}). What differs between an exclusive lock and a side of a read-write
 * lock is the keys' {@link LockKind}. Holds no state of its own; what is held lives in Redis and in the client's
 * holds.
 */
final class RedisReentrantLock implements ReentrantDistributedLock {

    private final LockKeys keys;
    private final OwnerIds.@Nullable Owner fixedOwner;
    /** How long a first acquisition through this handle may be held at most; 0: no limit. */
    private final long maxHoldNanos;
    /** The owner ids of the client's threads. */
    private final OwnerIds owners;
    private final LockCommands commands;
    private final HoldRegistry holds;
    private final Acquisitions acquisitions;
    private final LockWaits waits;
    private final Releases releases;
    private final AsyncCalls async;
    /** Throws if the client is closed. */
    private final Runnable openCheck;
    /** Tells the lost-lock listeners of a hold found lost. */
    private final Consumer<Hold> lossReporter;
    /** The lease of holds the watchdog renews. */
    private final long watchdogLeaseMillis;

    /** A handle owned by the calling thread ({@code fixedOwnerId} null) or by that owner, on the client's services. */
    RedisReentrantLock(LockKeys keys, @Nullable String fixedOwnerId, OwnerIds owners, LockCommands commands,
            HoldRegistry holds, Acquisitions acquisitions, LockWaits waits, Releases releases, AsyncCalls async,
            Runnable openCheck, Consumer<Hold> lossReporter, long watchdogLeaseMillis) {
        this.keys = keys;
        this.fixedOwner = OwnerIds.explicit(fixedOwnerId);
        this.maxHoldNanos = 0;
        this.owners = owners;
        this.commands = commands;
        this.holds = holds;
        this.acquisitions = acquisitions;
        this.waits = waits;
        this.releases = releases;
        this.async = async;
        this.openCheck = openCheck;
        this.lossReporter = lossReporter;
        this.watchdogLeaseMillis = watchdogLeaseMillis;
    }

    /** {@code handle} with first acquisitions held at most {@code maxHoldNanos}. */
    private RedisReentrantLock(RedisReentrantLock handle, long maxHoldNanos) {
        this.keys = handle.keys;
        this.fixedOwner = handle.fixedOwner;
        this.maxHoldNanos = maxHoldNanos;
        this.owners = handle.owners;
        this.commands = handle.commands;
        this.holds = handle.holds;
        this.acquisitions = handle.acquisitions;
        this.waits = handle.waits;
        this.releases = handle.releases;
        this.async = handle.async;
        this.openCheck = handle.openCheck;
        this.lossReporter = handle.lossReporter;
        this.watchdogLeaseMillis = handle.watchdogLeaseMillis;
    }

    @Override
    public RedisReentrantLock withMaxHold(Duration maxHold) {
        return new RedisReentrantLock(this, SettingRules.checkLease("maxHold", maxHold).toNanos());
    }

    @Override
    public String getName() {
        return keys.name();
    }

    @Override
    public String getKey() {
        return keys.lock();
    }

    @Override
    public void lock() {
        acquireUninterruptibly(Long.MAX_VALUE, watchdogLeaseMillis, true);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        acquireUninterruptibly(Long.MAX_VALUE, Arguments.leaseMillis(leaseTime, unit), false);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(Long.MAX_VALUE, watchdogLeaseMillis, true, true);
    }

    @Override
    public boolean tryLock() {
        return acquireUninterruptibly(0, watchdogLeaseMillis, true);
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return acquire(Arguments.waitNanos(waitTime, unit), watchdogLeaseMillis, true, true);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return acquire(Arguments.waitNanos(waitTime, unit), Arguments.leaseMillis(leaseTime, unit), false, true);
    }

    /**
     * Takes the lock for a multi-lock: waits up to {@code waitNanos} (0: one attempt) and holds it for
     * {@code leaseMillis}, or with the watchdog if 0.
     */
    boolean take(long waitNanos, long leaseMillis, boolean interruptible) throws InterruptedException {
        boolean watchdog = leaseMillis == 0;
        return acquire(waitNanos, watchdog ? watchdogLeaseMillis : leaseMillis, watchdog, interruptible);
    }

    /** The caller's hold as this client records it; null if none. */
    @Nullable Hold hold() {
        return holds.get(keys, holder().id());
    }

    /**
     * Gives back a level the caller took and no longer wants, as {@link #unlock()} does; once the client is closed
     * (it then forgets its holds and refuses unlock()), a first hold ({@code taken}) is released all the same.
     */
    void giveBack(@Nullable Hold taken) {
        if (!closed()) {
            unlock();
        }
        else if (taken != null && taken.count() == 1) {
            Waits.await(releases.releaseFirst(keys, taken));
        }
    }

    private boolean closed() {
        try {
            openCheck.run();
            return false;
        }
        catch (IllegalStateException ex) {
            return true;
        }
    }

    private boolean acquireUninterruptibly(long waitNanos, long leaseMillis, boolean watchdog) {
        try {
            return acquire(waitNanos, leaseMillis, watchdog, false);
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException("An uninterruptible wait cannot be interrupted", ex);
        }
    }

    private boolean acquire(long waitNanos, long leaseMillis, boolean watchdog, boolean interruptible)
            throws InterruptedException {
        Holder holder = holder();
        checkKind();
        openCheck.run();
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("Interrupted before waiting for lock '" + keys.name() + "'");
        }
        if (acquisitions.reenterLocally(keys, holder, leaseMillis, watchdog)) {
            return true; // nothing to wait for: the caller holds it already
        }
        // an explicit owner's hold changes only in its turn, and a hand-off would register one outside it
        ReleaseWaiter.Candidate candidate = !keys.kind().handsOff() || holder.thread() == null ? null
                : new ReleaseWaiter.Candidate(holder.id(), holder.thread(), leaseMillis, watchdog, maxHoldNanos);
        AsyncAcquire.Started<Boolean> waiting = waits.tryAcquire(keys, holder, leaseMillis, watchdog, maxHoldNanos,
                waitNanos, candidate);
        return interruptible ? awaitInterruptibly(waiting) : Waits.await(waiting.result());
    }

    /**
     * Waits for the lock until an interrupt comes, which ends the wait; a lock taken or handed over at that very
     * moment is given back before this returns (so it can never be taken for a later hold of the same thread),
     * unless the wait had already ended with it (then the lock is held and the interrupt status kept).
     */
    private boolean awaitInterruptibly(AsyncAcquire.Started<Boolean> waiting) throws InterruptedException {
        try {
            return waiting.result().get();
        }
        catch (InterruptedException ex) {
            if (waiting.result().cancel(false)) {
                Waits.await(waiting.settled()); // what the wait had under way ends first, uninterruptibly
                Thread.interrupted(); // an interrupt meanwhile is the same one, reported below
                throw new InterruptedException("Interrupted while waiting for lock '" + keys.name() + "'");
            }
            Thread.currentThread().interrupt();
            return Waits.await(waiting.result());
        }
        catch (ExecutionException ex) {
            throw Waits.rethrown(ex);
        }
    }

    @Override
    public void unlock() {
        openCheck.run();
        releases.unlock(keys, holder());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime, @Nullable Duration leaseTime, LockOwner owner) {
        return async.tryLock(keys, async.caller(keys, fixedOwner, owner), maxHoldNanos, Arguments.waitNanos(waitTime),
                leaseTime);
    }

    @Override
    public CompletableFuture<Void> lockAsync(LockOwner owner) {
        return async.lock(keys, async.caller(keys, fixedOwner, owner), maxHoldNanos, null);
    }

    @Override
    public CompletableFuture<Void> lockAsync(Duration leaseTime, LockOwner owner) {
        return async.lock(keys, async.caller(keys, fixedOwner, owner), maxHoldNanos, leaseTime);
    }

    @Override
    public CompletableFuture<Void> unlockAsync(LockOwner owner) {
        return async.unlock(keys, async.caller(keys, fixedOwner, owner));
    }

    @Override
    public boolean forceUnlock() {
        return forceUnlock((commands, keys) -> keys.kind().forceUnlock(commands, keys), false);
    }

    /**
     * Runs {@code force}, which ends holds of this lock in Redis, refused once the client is closed. If it ended any,
     * this client's own holds of the lock (of both sides of a read-write lock with {@code everySide}) are lost from
     * now on: this client ran the force, so their owners see the loss at once and the listeners hear of it, rather
     * than at the watchdog's next round, meanwhile re-entering a lock that another owner may already hold.
     */
    boolean forceUnlock(BiFunction<LockCommands, LockKeys, Boolean> force, boolean everySide) {
        List<Hold> before = holds.of(keys, everySide); // a hold taken after the force is not one it ended
        boolean ended = change(force);
        if (ended) {
            for (Hold hold : before) {
                // still registered: one released meanwhile is not lost; nor is a fixed lease that ran out, which
                // ended as asked before the force (by the local clock, which never counts it past Redis's)
                if (holds.get(hold.keys(), hold.ownerId()) == hold && !hold.fixedLeaseEnded() && hold.markLost()) {
                    lossReporter.accept(hold);
                }
            }
        }
        return ended;
    }

    @Override
    public boolean isLocked() {
        return query(() -> keys.kind().isLocked(commands, keys));
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return getHoldCount() > 0;
    }

    @Override
    public boolean isLost() {
        Hold hold = holds.get(keys, holder().id());
        return hold != null && (hold.lost() || hold.leaseEnded());
    }

    /**
     * What this client knows, with no round trip: what the last call to Redis and the watchdog told it. A hold
     * known lost, or whose lease ran out by the local clock (a fixed lease, or a watchdog lease no renewal
     * reached in time), is 0, and the owner has now seen that: its next
     * acquisition is a new hold, and the record goes after a watchdog timeout, so that
     * {@code if (isHeldByCurrentThread()) unlock()} leaves nothing behind. A loss not known yet is reported by
     * the watchdog's next round or by {@code unlock()}.
     */
    @Override
    public int getHoldCount() {
        Hold hold = holds.get(keys, holder().id());
        if (hold == null) {
            return 0;
        }
        if (!hold.lost() && !hold.leaseEnded()) {
            return hold.count();
        }
        if (hold.markLost()) {
            lossReporter.accept(hold); // a lease the local clock saw end: told to the listeners once, too
        }
        hold.lossSeen(System.nanoTime()); // kept a while for an unlock() to report, then forgotten
        return 0;
    }

    @Override
    public Duration remainingLease() {
        return Duration.ofMillis(query(() -> keys.kind().remainingLeaseMillis(commands, keys,
                holder().id())));
    }

    @Override
    public long fencingToken() {
        Holder holder = holder();
        Hold hold = holds.get(keys, holder.id());
        if (hold == null || hold.lost() || hold.leaseEnded()) {
            throw new IllegalMonitorStateException("Lock '" + keys.name() + "' is not held by " + holder.describe()
                    + ", so there is no fencing token");
        }
        return hold.fencingToken();
    }

    @Override
    public Optional<HeldLock> currentHold() {
        Hold hold = holds.get(keys, holder().id());
        return hold == null ? Optional.empty() : Optional.of(hold.heldLock());
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed locks have no conditions: waiting threads would have to "
                + "be tracked in Redis too. Use a separate queue or pub/sub channel to signal between holders.");
    }

    /**
     * Asks Redis {@code question} about this lock's keys, outside any hold of the owner (no open check: a
     * closed client may still read); a failure to reach Redis is a {@link LockOperationException}.
     */
    <T> T ask(BiFunction<LockCommands, LockKeys, T> question) {
        return query(() -> question.apply(commands, keys));
    }

    /** As {@link #ask}, refused once the client is closed: for what changes the lock. */
    <T> T change(BiFunction<LockCommands, LockKeys, T> change) {
        openCheck.run();
        return ask(change);
    }

    private <T> T query(Supplier<T> call) {
        try {
            return call.get();
        }
        catch (DataAccessException ex) {
            throw new LockOperationException(keys.name(), keys.lock(), "Could not read lock '" + keys.name() + "': "
                    + RedisFailures.describe(ex), ex);
        }
    }

    /** The kind's own refusals, with the caller named by its owner id (not the hold's field). */
    private void checkKind() {
        OwnerIds.Owner owner = owner();
        keys.kind().check(holds, keys, owner.id(), new Holder(owner, threadName()).describe());
    }

    private @Nullable String threadName() {
        return fixedOwner != null ? null : Thread.currentThread().getName();
    }

    /** Who calls: the explicit owner, or the calling thread's. */
    private OwnerIds.Owner owner() {
        return fixedOwner != null ? fixedOwner : owners.currentThread();
    }

    /** The caller as the holder of this kind of lock: its hold's field in Redis (see {@link LockKind#field}). */
    private Holder holder() {
        return Holder.of(keys, owner(), threadName());
    }

    @Override
    public String toString() {
        return "RedisReentrantLock[" + keys.lock() + (fixedOwner != null ? ", owner " + fixedOwner.id() : "") + "]";
    }
}
