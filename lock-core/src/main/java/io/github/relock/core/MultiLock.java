package io.github.relock.core;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Several locks held as one: taken all or none, in a fixed order (sorted by name), within one wait budget, and
 * released in reverse. Made by {@link DistributedLockClient#getMultiLock(String...)}.
 *
 * <p>As a {@link ReentrantDistributedLock}: {@link #tryLock(long, TimeUnit)} and its kin wait at most once
 * their wait time for all of the locks together, and release the ones taken if one is not. They wait for one
 * lock at a time while holding none of the others, then take the others at once; one of those that is busy is
 * given back with the rest and waited for next. So two callers never deadlock, no lock's lease runs while
 * another is awaited, the leases start within moments of each other, and a call returns held only when every
 * lock is held by its owner; a client closed meanwhile leaves none of them taken. {@link #unlock()}
 * releases every lock, carrying on past failures, and then throws the first ({@link LockLostException} if a
 * lock was lost). {@link #isHeldByCurrentThread()} means all are held, {@link #isLost()} that one is lost,
 * and once one is known lost these queries give back the others (so {@code finally { if
 * (multi.isHeldByCurrentThread()) multi.unlock(); }} leaves nothing held); {@link #getHoldCount()} is the first lock's
 * while all are held, else 0, and {@link #fencingToken()} is the first lock's token (each
 * lock has its own: use {@link #locks()} for the others). {@link #getName()} and {@link #getKey()} join the
 * names and keys with commas. {@link #forceUnlock()} frees every lock.
 */
public interface MultiLock extends ReentrantDistributedLock {

    /** The locks, in the order they are taken. */
    List<ReentrantDistributedLock> locks();
}
