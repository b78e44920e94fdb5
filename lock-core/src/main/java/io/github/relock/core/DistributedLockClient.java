package io.github.relock.core;

import java.util.Collection;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What hands out distributed locks: the interface that code using relock (the Spring Boot starter among it)
 * depends on. {@link RedisLockClient} is the implementation.
 *
 * <p>A client owns what its locks share (lease renewal, the wake-up of waiters) and is thread-safe; use one
 * per application and {@link #close()} it on shutdown.
 */
public interface DistributedLockClient extends AutoCloseable {

    /**
     * A handle on the lock called {@code name}, owned by whichever thread calls it. Handles are cheap:
     * there is no need to cache them.
     *
     * @throws IllegalArgumentException if the name is null, blank or longer than {@link LockNames#MAX_LENGTH}
     */
    ReentrantDistributedLock getLock(String name);

    /**
     * A handle on the lock called {@code name}, owned by {@code owner} instead of a thread: acquire on one
     * thread, release on another.
     *
     * @throws IllegalArgumentException if the owner was made by another client
     */
    ReentrantDistributedLock getLock(String name, LockOwner owner);

    /**
     * A handle on the fair lock called {@code name}, owned by whichever thread calls it: an exclusive reentrant
     * lock that goes to its waiters first come, first served, across threads and clients, in the order Redis
     * received their first attempts. A waiter that gives up (wait time, interrupt) leaves the line at once; one
     * that dies keeps its place for at most 3 seconds. A waiting {@code tryLock()} with no wait time takes a
     * free lock only if nobody waits for it. Its Redis keys ({@code prefix{name}:fair} and companions) are apart
     * from those of the exclusive lock with the same name.
     *
     * @throws IllegalArgumentException if the name is null, blank or longer than {@link LockNames#MAX_LENGTH}
     * @throws UnsupportedOperationException if the client waits for replicas ({@code minReplicas > 0}), which
     *                                       fair locks do not support yet
     */
    ReentrantDistributedLock getFairLock(String name);

    /** As {@link #getFairLock(String)}, owned by {@code owner} instead of a thread. */
    ReentrantDistributedLock getFairLock(String name, LockOwner owner);

    /**
     * A handle on the read-write lock called {@code name}; both sides are owned by whichever thread calls them.
     * See {@link ReadWriteDistributedLock}. Its Redis keys ({@code prefix{name}:rw} and companions) are apart from
     * those of the exclusive and fair locks with the same name, and neither side excludes them: a name locked both
     * ways is two locks.
     *
     * @throws IllegalArgumentException if the name is null, blank or longer than {@link LockNames#MAX_LENGTH}
     * @throws UnsupportedOperationException if the client waits for replicas ({@code minReplicas > 0}), which
     *                                       read-write locks do not support yet
     */
    ReadWriteDistributedLock getReadWriteLock(String name);

    /** As {@link #getReadWriteLock(String)}, both sides owned by {@code owner} instead of a thread. */
    ReadWriteDistributedLock getReadWriteLock(String name, LockOwner owner);

    /**
     * One handle on several locks, taken all or none: in a fixed order (sorted by name, duplicates once), so
     * that two callers that lock the same names in a different order cannot deadlock, and within one wait
     * budget. Owned by the calling thread.
     *
     * @throws IllegalArgumentException if there is no name, or one is invalid
     */
    MultiLock getMultiLock(String... names);

    /** As {@link #getMultiLock(String...)}, owned by {@code owner}, or by the calling thread if it is null. */
    MultiLock getMultiLock(Collection<String> names, @Nullable LockOwner owner);

    /** A new owner for work that moves between threads; see {@link LockOwner}. */
    LockOwner newOwner();

    /**
     * The locks this client's owners hold, as last seen locally (no Redis round trip): a hold known lost, or
     * whose fixed lease ran out by the local clock, is left out.
     */
    List<HeldLock> heldLocks();

    /** Adds a listener for locks found lost while held. */
    void addLockLostListener(LockLostListener listener);

    void removeLockLostListener(LockLostListener listener);

    /** The id that starts every owner id of this client. */
    String getClientId();

    /** Whether {@link #close()} was called. */
    boolean isClosed();

    /** Stops renewing leases and releases what the client's waiters use; held locks then end with their leases. */
    @Override
    void close();
}
