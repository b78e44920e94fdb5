package io.github.relock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A reentrant lock shared by every process that uses the same Redis and the same lock name.
 *
 * <p>Ownership belongs to the thread that acquired the lock, or to the explicit {@link LockOwner} the
 * handle was created for ({@link RedisLockClient#getLock(String, LockOwner)}). The owner may re-enter
 * any number of times and must release once per acquisition.
 *
 * <p>Leases: an acquisition without a lease is kept alive by the client's watchdog until it is
 * released; one with a lease ends when the lease runs out, whether or not the owner released it.
 * A holder that dies therefore frees the lock after at most one lease.
 *
 * <p>Methods that talk to Redis throw {@link LockOperationException} when Redis cannot be reached
 * within the connection factory's command timeout.
 */
public interface ReentrantDistributedLock extends Lock {

    /** The lock's name, as passed to {@link RedisLockClient#getLock(String)}. */
    String getName();

    /** The Redis key of the lock's hash, e.g. {@code lock:{order:42}}. */
    String getKey();

    /**
     * Waits as long as it takes, then holds the lock with the watchdog keeping it alive. Interrupts
     * do not stop the wait; the thread's interrupt status is restored once the lock is held.
     */
    @Override
    void lock();

    /**
     * Waits as long as it takes, then holds the lock for {@code leaseTime} with no watchdog.
     *
     * @throws IllegalArgumentException if the lease is not positive or longer than 365 days
     */
    void lock(long leaseTime, TimeUnit unit);

    /** Like {@link #lock()}, but an interrupt ends the wait with {@link InterruptedException}. */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /** One attempt, no waiting; on success the watchdog keeps the lock alive. */
    @Override
    boolean tryLock();

    /**
     * Waits up to {@code waitTime} (0: one attempt); on success the watchdog keeps the lock alive.
     *
     * @throws IllegalArgumentException if the wait time is negative
     */
    @Override
    boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException;

    /**
     * Waits up to {@code waitTime} (0: one attempt); on success holds the lock for {@code leaseTime}
     * with no watchdog.
     *
     * @throws IllegalArgumentException if the wait time is negative, or the lease not positive or
     *                                  longer than 365 days
     */
    boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Gives back one hold; the last one frees the lock and wakes a waiter. Renewal stops before the
     * release is sent. A release that failed on the network is retried without ever counting twice.
     *
     * @throws IllegalMonitorStateException if the owner does not hold the lock
     * @throws LockLostException            if the owner held it, but its lease ran out or it was
     *                                      force-unlocked before this call
     */
    @Override
    void unlock();

    /** Deletes the lock whoever holds it. The former holder's fencing token becomes stale. */
    boolean forceUnlock();

    /** Whether anyone holds the lock right now (one Redis round trip). */
    boolean isLocked();

    /** Whether this handle's owner holds the lock right now, according to Redis. */
    boolean isHeldByCurrentThread();

    /**
     * Whether this handle's owner took the lock and has since lost it, as far as this client knows
     * without asking Redis: the watchdog found it gone, or its fixed lease has run out by the local
     * clock. Use it before committing work done under the lock; {@link #unlock()} will then throw
     * {@link LockLostException}.
     */
    boolean isLost();

    /** How many times this handle's owner holds the lock, according to Redis (0 if not at all). */
    int getHoldCount();

    /** Time left on the lock's lease, whoever holds it; {@link Duration#ZERO} if the lock is free. */
    Duration remainingLease();

    /**
     * The fencing token of the owner's current hold: strictly greater than every token issued before
     * for this lock name, by any client. Pass it to the resource you protect and have the resource
     * refuse writes carrying a token lower than the highest it has seen.
     *
     * @throws IllegalMonitorStateException if this handle's owner does not hold the lock
     */
    long fencingToken();

    /**
     * Not supported: a condition would need the wait set to live in Redis as well.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    Condition newCondition();
}
