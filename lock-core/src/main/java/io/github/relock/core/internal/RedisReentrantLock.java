package io.github.relock.core.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOperationException;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * A lock handle: one lock name, owned by the calling thread or by one explicit owner. Holds no state
 * of its own beyond that; what is held lives in Redis and in the client's {@link HoldRegistry}.
 */
public final class RedisReentrantLock implements ReentrantDistributedLock {

    /** Attempts for one release whose outcome the network left unknown; they can never count twice. */
    private static final int RELEASE_ATTEMPTS = 3;
    private static final long RELEASE_RETRY_PAUSE_MILLIS = 50;
    /** transfer.lua answered with an error on the first try, so it changed nothing. */
    private static final long TRANSFER_REFUSED = -2;
    /** How often to look again when the holder set no lease (a key written by something else). */
    private static final long NO_LEASE_POLL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LockKeys keys;
    private final ClientContext context;
    private final @Nullable String fixedOwnerId;
    private final OwnerIds.@Nullable Owner fixedOwner;
    /** How long a first acquisition through this handle may be held at most; 0: no limit. */
    private final long maxHoldNanos;

    public RedisReentrantLock(LockKeys keys, ClientContext context, @Nullable String fixedOwnerId) {
        this(keys, context, fixedOwnerId, OwnerIds.explicit(fixedOwnerId), 0);
    }

    private RedisReentrantLock(LockKeys keys, ClientContext context, @Nullable String fixedOwnerId,
            OwnerIds.@Nullable Owner fixedOwner, long maxHoldNanos) {
        this.keys = keys;
        this.context = context;
        this.fixedOwnerId = fixedOwnerId;
        this.fixedOwner = fixedOwner;
        this.maxHoldNanos = maxHoldNanos;
    }

    @Override
    public ReentrantDistributedLock withMaxHold(Duration maxHold) {
        if (maxHold == null || maxHold.isNegative() || maxHold.isZero() || maxHold.compareTo(Arguments.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("maxHold must be between 1 ms and " + Arguments.MAX_LEASE.toDays()
                    + " days, was " + maxHold);
        }
        return new RedisReentrantLock(keys, context, fixedOwnerId, fixedOwner, maxHold.toNanos());
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
        acquireUninterruptibly(context.watchdogLeaseMillis(), true);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        acquireUninterruptibly(Arguments.leaseMillis(leaseTime, unit), false);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(Long.MAX_VALUE, context.watchdogLeaseMillis(), true, true);
    }

    @Override
    public boolean tryLock() {
        context.openCheck().run();
        return attempt(ownerId(), context.watchdogLeaseMillis(), true).acquired();
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return acquire(Arguments.waitNanos(waitTime, unit), context.watchdogLeaseMillis(), true, true);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        long waitNanos = Arguments.waitNanos(waitTime, unit);
        return acquire(waitNanos, Arguments.leaseMillis(leaseTime, unit), false, true);
    }

    private void acquireUninterruptibly(long leaseMillis, boolean watchdog) {
        try {
            acquire(Long.MAX_VALUE, leaseMillis, watchdog, false);
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException("An uninterruptible wait cannot be interrupted", ex);
        }
    }

    private boolean acquire(long waitNanos, long leaseMillis, boolean watchdog, boolean interruptible)
            throws InterruptedException {
        context.openCheck().run();
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("Interrupted before waiting for lock '" + keys.name() + "'");
        }
        String owner = ownerId();
        long deadline = System.nanoTime() + waitNanos;
        boolean interrupted = false;
        try {
            if (waitNanos > 0 && stepBack(deadline)) {
                interrupted = interruptedWhileWaiting(interruptible);
            }
            AcquireReply reply = attempt(owner, leaseMillis, watchdog);
            if (reply.acquired() || waitNanos == 0) {
                return reply.acquired();
            }
            try (ReleaseWaiter waiter = join(new ReleaseWaiter.Candidate(owner, ownerThread(), leaseMillis, watchdog,
                    maxHoldNanos))) {
                // behind other local waiters, a release since the attempt above woke one of them or went to one
                boolean attemptNow = !waiter.behindOthers();
                while (true) {
                    if (attemptNow) {
                        // armed before the attempt: a release announced from here on wakes the sleep below
                        waiter.arm();
                        reply = attempt(owner, leaseMillis, watchdog);
                        if (reply.acquired()) {
                            waiter.arm(); // the wake-up, if any, was used
                            return true;
                        }
                    }
                    attemptNow = true;
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    boolean interruptedNow = sleep(waiter, Math.min(left, untilLeaseEnds(reply.value())));
                    if (waiter.takeGrant()) {
                        waiter.arm();
                        if (interruptedNow && interruptible) {
                            throw giveBackUnwanted(owner);
                        }
                        interrupted |= interruptedNow;
                        return true;
                    }
                    if (interruptedNow || stepBack(deadline)) {
                        interrupted = interruptedWhileWaiting(interruptible);
                    }
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private ReleaseWaiter join(ReleaseWaiter.Candidate candidate) {
        try {
            // with minReplicas a moved hold would skip its WAIT: such waiters only ever take the lock themselves
            return context.subscriptions().join(keys.channel(), context.commands().awaitsReplicas() ? null : candidate);
        }
        catch (DataAccessException ex) {
            throw new LockOperationException(keys.name(), "Could not wait for lock '" + keys.name()
                    + "' (the subscription failed): " + RedisFailures.describe(ex), ex);
        }
    }

    private boolean interruptedWhileWaiting(boolean interruptible) throws InterruptedException {
        if (interruptible) {
            throw new InterruptedException("Interrupted while waiting for lock '" + keys.name() + "'");
        }
        return true;
    }

    /** Sleeps in the waiter; a hand-off granted just as the client closed is given back, not left to its lease. */
    private boolean sleep(ReleaseWaiter waiter, long nanos) {
        try {
            return waiter.await(nanos);
        }
        catch (RuntimeException ex) {
            if (waiter.takeGrant()) {
                Hold granted = context.holds().get(keys, ownerId());
                if (granted != null) {
                    context.holds().remove(granted);
                    try {
                        release(granted, 1);
                    }
                    catch (RuntimeException releaseFailure) {
                        ex.addSuppressed(releaseFailure);
                    }
                }
            }
            throw ex;
        }
    }

    /**
     * While this client steps back after freeing the lock for another client, leaves it alone until the
     * step-back ends (or the deadline). True if an interrupt cut the pause short (status cleared).
     */
    private boolean stepBack(long deadline) {
        while (true) {
            long pause = Math.min(context.subscriptions().stepBackNanos(keys.channel()), deadline - System.nanoTime());
            if (pause <= 0) {
                return false;
            }
            LockSupport.parkNanos(this, pause);
            if (Thread.interrupted()) {
                return true;
            }
        }
    }

    /**
     * An interruptible wait that was interrupted just as a hand-off made this thread the owner: the
     * interrupt wins, and the hold goes on (to the next local waiter or to everyone) before it is reported.
     */
    private InterruptedException giveBackUnwanted(String owner) {
        InterruptedException interrupted = new InterruptedException("Interrupted while waiting for lock '"
                + keys.name() + "'; the lock handed over at that moment was passed on");
        try {
            unlock();
        }
        catch (RuntimeException ex) {
            interrupted.addSuppressed(ex);
        }
        return interrupted;
    }

    private static long untilLeaseEnds(long pttlMillis) {
        if (pttlMillis == -1) {
            return NO_LEASE_POLL_NANOS;
        }
        // -2: the key vanished between the two reads; 0: expiring now. Either way, look again at once
        return TimeUnit.MILLISECONDS.toNanos(Math.max(0, pttlMillis));
    }

    /** One acquire round trip; records the hold before returning so renewal can never miss it. */
    private AcquireReply attempt(String owner, long leaseMillis, boolean watchdog) {
        Hold hold = context.holds().get(keys, owner);
        if (hold != null && hold.lost() && !hold.lossSeen()) {
            context.holds().remove(hold); // told once; the next call starts afresh
            throw lostOnReentry();
        }
        if (hold != null && (hold.lost() || hold.fixedLeaseEnded())) {
            // the owner saw the loss, or the lease ended as asked: this is a new hold, not a re-entry
            context.holds().remove(hold);
            hold = null;
        }
        int before = hold == null ? 0 : hold.count();
        AcquireReply reply;
        byte[] ownerBytes = ownerBytes(owner);
        long sent = System.nanoTime();
        try {
            // an interrupt must not leave the outcome unknown: the status is restored for the wait to see
            reply = Interrupts.uninterruptibly(
                    () -> context.commands().acquire(keys, ownerBytes, leaseMillis, before));
        }
        catch (DataAccessException ex) {
            throw new LockOperationException(keys.name(), "Could not acquire lock '" + keys.name() + "': "
                    + RedisFailures.describe(ex), ex);
        }
        if (reply.acquired()) {
            if (before == 0) {
                Hold acquired = new Hold(keys, owner, ownerBytes, ownerThread(), reply.value(), watchdog,
                        (int) reply.holds(), leaseMillis, sent);
                acquired.maxHold(sent, maxHoldNanos);
                if (context.commands().awaitsReplicas()) {
                    acquired.acknowledged(sent, leaseMillis); // the acquisition was acknowledged, or not taken
                }
                context.holds().put(acquired);
            }
            else {
                hold.count((int) reply.holds());
                // the longest lease asked for wins: the script lengthened the lease, never shortened it
                hold.leaseRenewed(sent, leaseMillis);
                if (watchdog) {
                    hold.handToWatchdog();
                }
            }
        }
        else if (reply.holdGone()) {
            if (hold != null) {
                context.holds().remove(hold);
            }
            if (before == 0) {
                throw new IllegalStateException("Redis already records holds of lock '" + keys.name() + "' for owner '"
                        + owner + "' that this client did not take: is another client using the same client id?");
            }
            throw lostOnReentry();
        }
        return reply;
    }

    private LockLostException lostOnReentry() {
        return new LockLostException(keys.name(), "Lock '" + keys.name() + "' was lost while " + describeOwner()
                + " held it (its lease ran out or it was force-unlocked); re-entry refused");
    }

    @Override
    public void unlock() {
        context.openCheck().run();
        String owner = ownerId();
        Hold hold = context.holds().get(keys, owner);
        if (hold == null) {
            throw new IllegalMonitorStateException("Lock '" + keys.name() + "' is not held by " + describeOwner());
        }
        if (hold.lost()) {
            context.holds().remove(hold);
            throw lost();
        }
        int before = hold.count();
        if (before == 1) {
            context.holds().remove(hold); // stops renewal before the release (or the hand-off) runs
            if (handOff(hold)) {
                return;
            }
        }
        long left = release(hold, before);
        if (left < 0) {
            context.holds().remove(hold);
            throw lost();
        }
        if (left > 0) {
            hold.count((int) left);
        }
    }

    /**
     * Gives the last hold straight to a thread of this client asleep on the lock: one script call, no
     * announcement, and the other clients' waiters are not woken for nothing. Once the streak is used up
     * the same call frees the lock instead if another client waits, and this client steps back. False if
     * nobody here was asleep: release as usual.
     */
    private boolean handOff(Hold hold) {
        ReleaseWaiter next = context.subscriptions().reserveSleeper(keys.channel());
        if (next == null) {
            return false;
        }
        ReleaseWaiter.Candidate to = java.util.Objects.requireNonNull(next.candidate());
        HandOffStreak streak = next.streak();
        long now = System.nanoTime();
        long token;
        try {
            token = transfer(hold, to, streak.usedUp(now));
        }
        catch (RuntimeException ex) {
            next.decline(); // it tries on its own; if the hand-off did happen, acquire.lua finds the hold its own
            throw ex;
        }
        if (token == TRANSFER_REFUSED) {
            next.decline();
            return false; // nothing changed (e.g. over maxmemory, where a plain release still works): release
        }
        if (token < 0) {
            next.decline();
            throw lost();
        }
        if (token == 0) {
            streak.freedForOthers(now);
            next.decline(); // it looks again once the step-back is over
            return true;
        }
        // registered (and renewed, without a lease of its own) before the new owner wakes
        Hold handed = new Hold(keys, to.ownerId(), to.ownerThread(), token, to.watchdog(), 1, to.leaseMillis(), now);
        handed.maxHold(now, to.maxHoldNanos());
        context.holds().put(handed);
        streak.handedOff(now);
        next.grant();
        return true;
    }

    private long transfer(Hold hold, ReleaseWaiter.Candidate to, boolean othersFirst) {
        // a refusal of the first attempt comes before any write (transfer.lua writes in before out)
        return resend(() -> context.commands().transfer(keys, hold.ownerId(), hold.fencingToken(), to.ownerId(),
                to.leaseMillis(), othersFirst), TRANSFER_REFUSED);
    }

    private long release(Hold hold, int before) {
        return resend(() -> context.commands().release(keys, hold.ownerBytes(), hold.tokenBytes(), before), null);
    }

    /**
     * Sends a release or a transfer, again after an unknown outcome: both scripts recognise a repeat of
     * themselves. An error reply to the first attempt returns {@code onFirstRefusal}, if given.
     */
    private long resend(Supplier<Long> script, @Nullable Long onFirstRefusal) {
        DataAccessException failure = null;
        for (int attempt = 1; attempt <= RELEASE_ATTEMPTS; attempt++) {
            try {
                return Interrupts.uninterruptibly(script);
            }
            catch (RedisConnectionFailureException | QueryTimeoutException ex) {
                failure = ex; // outcome unknown: sending it again is safe
                if (!Interrupts.sleep(RELEASE_RETRY_PAUSE_MILLIS * attempt)) {
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

    private LockLostException lost() {
        return new LockLostException(keys.name(), "Lock '" + keys.name() + "' was lost before " + describeOwner()
                + " released it: its lease ran out or it was force-unlocked, so another holder may have run meanwhile");
    }

    @Override
    public boolean forceUnlock() {
        context.openCheck().run();
        return query(() -> context.commands().forceUnlock(keys));
    }

    @Override
    public boolean isLocked() {
        return query(() -> context.commands().exists(keys));
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return getHoldCount() > 0;
    }

    @Override
    public boolean isLost() {
        Hold hold = context.holds().get(keys, ownerId());
        return hold != null && (hold.lost() || hold.fixedLeaseEnded());
    }

    /**
     * Asks Redis only when this client knows of a hold. A hold Redis no longer has is lost, and the owner
     * has now seen that: its next acquisition is a new hold, and the record goes after a watchdog timeout,
     * so that {@code if (isHeldByCurrentThread()) unlock()} leaves nothing behind.
     */
    @Override
    public int getHoldCount() {
        String owner = ownerId();
        Hold hold = context.holds().get(keys, owner);
        if (hold == null) {
            return 0;
        }
        int count = hold.lost() ? 0 : query(() -> context.commands().holdCount(keys, owner));
        if (count == 0) {
            hold.lossSeen(System.nanoTime()); // kept a while for an unlock() to report, then forgotten
        }
        return count;
    }

    @Override
    public Duration remainingLease() {
        return Duration.ofMillis(query(() -> context.commands().remainingLeaseMillis(keys)));
    }

    @Override
    public long fencingToken() {
        Hold hold = context.holds().get(keys, ownerId());
        if (hold == null || hold.lost()) {
            throw new IllegalMonitorStateException("Lock '" + keys.name() + "' is not held by " + describeOwner()
                    + ", so there is no fencing token");
        }
        return hold.fencingToken();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed locks have no conditions: waiting threads would have to "
                + "be tracked in Redis too. Use a separate queue or pub/sub channel to signal between holders.");
    }

    private <T> T query(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        }
        catch (DataAccessException ex) {
            throw new LockOperationException(keys.name(), "Could not read lock '" + keys.name() + "': "
                    + RedisFailures.describe(ex), ex);
        }
    }

    private OwnerIds.Owner owner() {
        return fixedOwner != null ? fixedOwner : context.owners().currentThread();
    }

    private String ownerId() {
        return owner().id();
    }

    /** The encoded form of {@code ownerId}, which is this handle's owner for the calling thread. */
    private byte[] ownerBytes(String ownerId) {
        OwnerIds.Owner owner = owner();
        return owner.id() == ownerId ? owner.bytes() : Encoding.bytes(ownerId);
    }

    private @Nullable String ownerThread() {
        return fixedOwnerId != null ? null : Thread.currentThread().getName();
    }

    private String describeOwner() {
        return fixedOwnerId != null ? "owner '" + fixedOwnerId + "'"
                : "thread '" + Thread.currentThread().getName() + "' (owner '" + ownerId() + "')";
    }

    @Override
    public String toString() {
        return "RedisReentrantLock[" + keys.lock() + (fixedOwnerId != null ? ", owner " + fixedOwnerId : "") + "]";
    }
}
