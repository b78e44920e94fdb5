package io.github.relock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

/**
 * A reentrant lock shared by every process that uses the same Redis and the same lock name.
 *
 * <p>Ownership belongs to the thread that acquired the lock, or to the explicit {@link LockOwner} the
 * handle was created for ({@link RedisLockClient#getLock(String, LockOwner)}). The owner may re-enter
 * any number of times and must release once per acquisition. Re-entry is counted in the client: only the
 * first acquisition and the last release talk to Redis, and a re-entry only when it asks for a longer
 * lease than the hold has left.
 *
 * <p>Leases: an acquisition without a lease is kept alive by the client's watchdog until it is
 * released; one with a lease ends when the lease runs out, whether or not the owner released it.
 * A holder that dies therefore frees the lock after at most one lease. A re-entry that asks for a
 * different lease: the longest lease asked for wins for the rest of the hold, and a re-entry without a
 * lease hands the hold to the watchdog.
 *
 * <p><b>Where this differs from {@link java.util.concurrent.locks.ReentrantLock}</b>, which code written
 * against {@link Lock} may assume:
 * <ul>
 * <li>A lock can be <em>lost</em> while held: its lease ran out (a fixed lease, or a watchdog that could
 * not reach Redis in time), it was {@linkplain #forceUnlock() force-unlocked}, or Redis lost its data.
 * The owner is told once: its {@link #unlock()} throws {@link LockLostException} (a
 * {@link DistributedLockException}, not an {@link IllegalMonitorStateException}: the owner did hold it), and so does a re-entry once the client knows of the loss (a
 * nested acquisition before that is counted in the client, and the loss is reported by the release
 * that goes to Redis). {@link #isHeldByCurrentThread()}, {@link #getHoldCount()} and {@link #isLost()}
 * answer from what the client knows (the watchdog's last round, the owner's last call to Redis) without
 * a round trip, so a loss the watchdog has not found yet is reported by its next round (within
 * {@code watchdogTimeout / 3}) or by {@link #unlock()}; {@link LockLostListener}s hear of locks the
 * watchdog finds gone. Once the owner has seen the loss ({@link #isHeldByCurrentThread()} or
 * {@link #getHoldCount()} answered false or 0), its next acquisition is a new hold; so is one after a
 * fixed lease it let run out. The idiom
 * {@code finally { if (lock.isHeldByCurrentThread()) lock.unlock(); }} therefore leaves nothing behind,
 * also on a thread whose interrupt status is set.</li>
 * <li>Methods that talk to Redis throw {@link LockOperationException} when Redis cannot be reached within
 * the connection factory's command timeout, {@link #lock()} included: it waits for the lock, not for
 * Redis. A first acquisition that fails so may still reach Redis later and take the lock for nobody: the client
 * then gives it back at once, rather than leave it to its lease.</li>
 * <li>After {@link RedisLockClient#close()} every method that acquires or releases throws
 * {@link IllegalStateException}.</li>
 * <li>{@link #newCondition()} is not supported.</li>
 * <li>A {@code null} {@link TimeUnit} is an {@link IllegalArgumentException}.</li>
 * </ul>
 * Interrupts follow {@link Lock}: {@link #lock()} and {@link #tryLock()} ignore them (and keep the
 * status); {@link #lockInterruptibly()} and the timed {@code tryLock} methods throw
 * {@link InterruptedException} and clear the status, also when it was set on entry; {@link #unlock()}
 * releases all the same and keeps the status, and the queries above answer. A zero or negative
 * wait time means one attempt, no waiting.
 */
public interface ReentrantDistributedLock extends Lock {

    /** The lock's name, as passed to {@link RedisLockClient#getLock(String)}. */
    String getName();

    /** The Redis key of the lock's hash, e.g. {@code lock:{order:42}}. */
    String getKey();

    /**
     * Waits as long as it takes, then holds the lock with the watchdog keeping it alive. Interrupts
     * do not stop the wait; the thread's interrupt status is restored once the lock is held.
     *
     * @throws LockLostException      if this is a re-entry into a hold that was lost meanwhile
     * @throws LockOperationException if Redis cannot be reached
     */
    @Override
    void lock();

    /**
     * Waits as long as it takes, then holds the lock for {@code leaseTime} with no watchdog.
     *
     * @throws IllegalArgumentException if the lease is not positive or longer than 365 days
     */
    void lock(long leaseTime, TimeUnit unit);

    /**
     * Like {@link #lock()}, but an interrupt, also one pending on entry, ends the wait with
     * {@link InterruptedException} and clears the interrupt status; nothing is held or subscribed then.
     */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /**
     * One attempt, no waiting; on success the watchdog keeps the lock alive. Ignores interrupts, as
     * {@link Lock#tryLock()} does, and keeps the interrupt status. A lock just freed while other clients
     * waited is kept for the first of them for a moment (at most 50 ms; see the README's "Clients take
     * turns"), and this returns {@code false} meanwhile.
     */
    @Override
    boolean tryLock();

    /**
     * Waits up to {@code waitTime}; zero or negative: one attempt. On success the watchdog keeps the lock
     * alive.
     *
     * @throws InterruptedException if interrupted while waiting, or on entry (the status is cleared)
     */
    @Override
    boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException;

    /**
     * Waits up to {@code waitTime} (zero or negative: one attempt); on success holds the lock for
     * {@code leaseTime} with no watchdog.
     *
     * @throws IllegalArgumentException if the lease is not positive or longer than 365 days
     * @throws InterruptedException     if interrupted while waiting, or on entry (the status is cleared)
     */
    boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * {@link #tryLock(long, TimeUnit)} with a {@link Duration}: waits up to {@code waitTime} (zero or negative:
     * one attempt); on success the watchdog keeps the lock alive. A wait too long for a {@code long} of
     * nanoseconds waits as long as it takes.
     *
     * @throws IllegalArgumentException if {@code waitTime} is null
     * @throws InterruptedException     if interrupted while waiting, or on entry (the status is cleared)
     */
    default boolean tryLock(Duration waitTime) throws InterruptedException {
        return tryLock(saturatedNanos(waitTime), TimeUnit.NANOSECONDS);
    }

    /**
     * {@link #tryLock(long, long, TimeUnit)} with {@link Duration}s: waits up to {@code waitTime} (zero or
     * negative: one attempt); on success holds the lock for {@code leaseTime} with no watchdog.
     *
     * @throws IllegalArgumentException if either is null, or the lease is not positive or longer than 365 days
     * @throws InterruptedException     if interrupted while waiting, or on entry (the status is cleared)
     */
    default boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long waitNanos = saturatedNanos(waitTime);
        if (leaseTime == null) {
            throw new IllegalArgumentException(
                    "leaseTime must not be null (tryLock(waitTime) lets the watchdog renew the lock instead)");
        }
        if (leaseTime.compareTo(Duration.ofDays(365)) > 0) {
            throw new IllegalArgumentException("leaseTime must be at most 365 days, was " + leaseTime);
        }
        return tryLock(waitNanos, leaseTime.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Waits and leases as {@code settings} say: {@link #tryLock(long, TimeUnit)} without a lease, else
     * {@link #tryLock(long, long, TimeUnit)}, through {@link #withMaxHold} if a maximum hold time is set.
     *
     * @throws InterruptedException if interrupted while waiting, or on entry (the status is cleared)
     */
    default boolean tryLock(LockSettings settings) throws InterruptedException {
        ReentrantDistributedLock lock = settings.maxHold() == null ? this : withMaxHold(settings.maxHold());
        long waitNanos = saturatedNanos(settings.waitTime());
        return settings.leaseTime() == null ? lock.tryLock(waitNanos, TimeUnit.NANOSECONDS)
                : lock.tryLock(waitNanos, settings.leaseTime().toNanos(), TimeUnit.NANOSECONDS);
    }

    private static long saturatedNanos(Duration duration) {
        if (duration == null) {
            throw new IllegalArgumentException("waitTime must not be null (0s makes one attempt)");
        }
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) {
            return duration.isNegative() ? 0 : Long.MAX_VALUE; // centuries: as long as it takes
        }
    }

    /**
     * Takes the lock for {@code owner} without holding a thread while it waits: the returned future
     * completes with true once the lock is held, with false if {@code waitTime} passed first. Between
     * attempts the wait is a subscription and a timer; each attempt is the same one Redis round trip as
     * {@link #tryLock(long, long, TimeUnit)}, sent without any thread waiting for its reply. The owner names the
     * holder, since no thread does: the same owner re-enters, and must release with
     * {@link #unlockAsync(LockOwner)} (or a handle of {@link RedisLockClient#getLock(String, LockOwner)}).
     *
     * <p>Cancelling the returned future (or completing it by hand) ends the wait and its subscription;
     * a lock taken just as that happened is given back, never left held by nobody. Cancel that future
     * itself: a stage derived from it does not pass cancellation back. The future fails with
     * {@link LockOperationException} if Redis cannot be reached, {@link LockLostException} for a re-entry
     * into a lost hold, {@link IllegalStateException} once the client is closed.
     *
     * <p>The future completes on {@link java.util.concurrent.ForkJoinPool#commonPool()}, never on a thread of the
     * Redis driver or of the client, so callbacks chained with {@code thenApply} and the like may block, or call
     * the blocking lock methods, without holding up the client's renewals. (A blocking lock method called on a
     * thread of the driver's event loops throws {@link IllegalStateException} at once.) On a host of two cores or
     * fewer the common pool has one worker, so a callback that blocks there holds up every other completion: run
     * blocking work with {@code thenApplyAsync(..., executor)}. Where the common pool runs nothing (parallelism 0),
     * each future completes on a thread of its own, as {@code CompletableFuture} then does. While Redis does not
     * answer, each attempt takes up to the connection factory's command timeout, and a deadline
     * can be passed by that much (more when many waiters retry at once).
     *
     * @param waitTime  how long to wait; zero or negative: one attempt
     * @param leaseTime how long the hold lasts unless released; null: the watchdog renews it until then
     * @throws IllegalArgumentException if {@code owner} belongs to another client, or to another owner than
     *                                  this handle's, or the lease is out of range
     */
    CompletableFuture<Boolean> tryLockAsync(Duration waitTime, @Nullable Duration leaseTime, LockOwner owner);

    /** {@link #tryLockAsync(Duration, Duration, LockOwner)} as {@code settings} say. */
    default CompletableFuture<Boolean> tryLockAsync(LockSettings settings, LockOwner owner) {
        ReentrantDistributedLock lock = settings.maxHold() == null ? this : withMaxHold(settings.maxHold());
        return lock.tryLockAsync(settings.waitTime(), settings.leaseTime(), owner);
    }

    /**
     * As {@link #tryLockAsync(Duration, Duration, LockOwner)}, waiting as long as it takes, with the watchdog
     * renewing the hold: the future completes once the lock is held.
     */
    CompletableFuture<Void> lockAsync(LockOwner owner);

    /**
     * As {@link #tryLockAsync(Duration, Duration, LockOwner)}, waiting as long as it takes: the future completes
     * once the lock is held for {@code leaseTime}, with no watchdog.
     *
     * @throws IllegalArgumentException if {@code owner} belongs to another client, or to another owner than
     *                                  this handle's, or the lease is not positive or longer than 365 days
     */
    CompletableFuture<Void> lockAsync(Duration leaseTime, LockOwner owner);

    /**
     * Gives back one of {@code owner}'s holds, as {@link #unlock()}; the future fails with what
     * {@link #unlock()} would throw. The release goes ahead whatever happens to the future.
     */
    CompletableFuture<Void> unlockAsync(LockOwner owner);

    /**
     * Gives back one hold; the last one frees the lock and wakes a waiter. Renewal stops before the
     * release is sent. A release that failed on the network is retried without ever counting twice, and
     * a retry recognises a release that did happen.
     *
     * @throws IllegalMonitorStateException if the owner does not hold the lock (another thread, or once
     *                                      too often)
     * @throws LockLostException            if the owner held it, but its lease ran out or it was
     *                                      force-unlocked before this call
     * @throws LockOperationException       if Redis could not be reached; the lock then frees when its
     *                                      lease ends
     */
    @Override
    void unlock();

    /**
     * A handle on the same lock whose first acquisitions may be held for {@code maxHold} at most: a hold
     * still there after that (a hung task, a future that never completes) is released at the next
     * watchdog round (within {@code watchdogTimeout / 3}) and reported lost, like a lock whose lease ran
     * out: {@link LockLostListener}s hear of it and the owner's {@link #unlock()} throws
     * {@link LockLostException}. It bounds watchdog holds, which otherwise last until released. Re-entries
     * keep the limit of the hold they enter.
     *
     * @throws IllegalArgumentException if not between 1 ms and 365 days
     */
    ReentrantDistributedLock withMaxHold(Duration maxHold);

    /**
     * Ends the lock's holds whoever holds them, and wakes its waiters. The former holder's fencing token
     * becomes stale, and its {@link #unlock()} throws {@link LockLostException}. A holder in this client knows at
     * once ({@link #isLost()}, {@link LockLostListener}s), one in another client at its watchdog's next round or its
     * next call to Redis. On a side of a {@link ReadWriteDistributedLock} it ends that side's holds only.
     *
     * @return true if a hold was ended, false if there was none
     * @throws LockOperationException if Redis cannot be reached
     */
    boolean forceUnlock();

    /**
     * Whether anyone holds the lock right now (one Redis round trip). On a side of a
     * {@link ReadWriteDistributedLock}: whether that side is held (a read hold, or the write hold).
     */
    boolean isLocked();

    /**
     * Whether this handle's owner holds the lock, as far as this client knows: no round trip, and an
     * interrupt status does not change the answer. False once the watchdog found the hold gone or its lease
     * ran out by the local clock (a fixed lease, or the watchdog's when no renewal reached Redis in time); the
     * owner has then seen the loss (see the class comment).
     */
    boolean isHeldByCurrentThread();

    /**
     * Whether this handle's owner took the lock and has since lost it, as far as this client knows
     * without asking Redis: the watchdog found it gone, or its lease (fixed, or the watchdog's when no
     * renewal reached Redis in time) has run out by the local clock. Use it before committing work done under the lock; {@link #unlock()} will then throw
     * {@link LockLostException}.
     */
    boolean isLost();

    /**
     * How many times this handle's owner holds the lock: the nesting depth, as far as this client knows
     * (0 if there is no hold, or it is known lost as for {@link #isHeldByCurrentThread()}). No round trip.
     */
    int getHoldCount();

    /**
     * Time left on the lock's lease, whoever holds it; {@link Duration#ZERO} if the lock is free. On a side of
     * a {@link ReadWriteDistributedLock}: the lease of this owner's hold on that side if it has one, else the
     * longest lease of that side's holds.
     */
    Duration remainingLease();

    /**
     * The fencing token of the owner's current hold: strictly greater than every token issued before
     * for this lock name, by any client. Pass it to the resource you protect and have the resource
     * refuse writes carrying a token lower than the highest it has seen.
     *
     * @throws IllegalMonitorStateException if this handle's owner does not hold the lock as far as this client
     *                                      knows (as for {@link #isHeldByCurrentThread()}: a hold known lost, or
     *                                      whose fixed lease ran out by the local clock, has no token)
     */
    long fencingToken();

    /**
     * The owner's hold on this lock as this client last saw it, without a Redis round trip: its fencing token,
     * hold count and lease. Empty if this handle's owner has no hold here. A hold the client knows is lost is
     * still returned while the client keeps its record, with the token it was taken with; {@link #isLost()} says
     * whether it is, and a write fenced by the token refuses it in any case.
     */
    Optional<HeldLock> currentHold();

    /**
     * Not supported: a condition would need the wait set to live in Redis as well.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    Condition newCondition();
}
