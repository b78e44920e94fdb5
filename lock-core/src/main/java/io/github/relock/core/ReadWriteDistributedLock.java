package io.github.relock.core;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A distributed read-write lock: any number of readers at once, across threads and clients, or one writer
 * and nobody else. Both sides are {@link ReentrantDistributedLock}s, with the same waits, leases, watchdog,
 * fencing tokens and {@link LockLostException} as an exclusive lock.
 *
 * <ul>
 * <li><b>Re-entry and downgrade.</b> Both sides re-enter. The writer may take the read lock and keep it after
 * it releases the write lock. An owner that holds only the read lock and asks for the write lock gets an
 * {@link IllegalMonitorStateException} at once: it would wait for its own read hold forever.</li>
 * <li><b>No starvation.</b> Readers and writers take turns by arrival, as Redis saw them (writers among
 * themselves in no set order). Once a writer waits, readers
 * that arrive after it wait behind it (a reader that re-enters does not): the writer waits only for the
 * readers inside or already waiting. Readers that waited before a writer go before it. A waiter that dies
 * holds the others back for at most 3 seconds.</li>
 * <li><b>Leases.</b> Every hold has its own lease: a reader that crashes frees its share when its own lease
 * ends, whatever the other readers do. The client's watchdog renews every hold, in its usual batches.</li>
 * <li><b>Wake-up.</b> A writer's release is announced to the readers, and the release of the last hold out to
 * the writers. Each client that hears an announcement wakes all of its waiters on this lock, readers and
 * writers; those whose turn it is go, the others sleep on.</li>
 * <li><b>Fencing.</b> Every first acquisition, read or write, gets a token larger than every token given
 * before on this name. So a write hold's token is larger than those of all holds before it, and a read
 * hold's token is larger than that of every write hold that ended before the read began.</li>
 * </ul>
 *
 * <p><b>Sides and the whole lock.</b> Each side answers for its own holds: {@code readLock().isLocked()} is
 * whether a read hold exists, {@code writeLock().isLocked()} whether the write hold does;
 * {@code writeLock().forceUnlock()} ends the write hold and leaves the readers alone, {@code readLock().forceUnlock()}
 * ends the read holds and leaves the writer alone; {@code remainingLease()} on a side is that side's lease.
 * {@link #isLocked()} and {@link #forceUnlock()} on this lock cover both sides.
 *
 * <p>Its Redis keys ({@code prefix{name}:rw} and companions) are apart from those of an exclusive lock
 * with the same name: the two never exclude each other.
 */
public interface ReadWriteDistributedLock extends ReadWriteLock {

    /** The name this lock was asked for by. */
    String getName();

    /**
     * The shared side. Its {@code isLocked()}, {@code forceUnlock()} and {@code remainingLease()} concern read
     * holds only.
     */
    @Override
    ReentrantDistributedLock readLock();

    /**
     * The exclusive side. Its {@code isLocked()}, {@code forceUnlock()} and {@code remainingLease()} concern the
     * write hold only.
     */
    @Override
    ReentrantDistributedLock writeLock();

    /** Whether anyone holds either side right now, a reader or the writer (one Redis round trip). */
    boolean isLocked();

    /**
     * Ends every hold of both sides, whoever holds them, and wakes the waiters. The former holders' fencing
     * tokens become stale; their {@code unlock()} throws {@link LockLostException}.
     *
     * @return true if any hold was ended, false if the lock was free
     * @throws LockOperationException if Redis cannot be reached
     */
    boolean forceUnlock();
}
