package io.github.relock.spring;

/**
 * Which kind of lock a {@link DistributedLock} method takes.
 *
 * <p>A lock name is either exclusive everywhere, or read-write everywhere (READ in some methods, WRITE in
 * others): mixing EXCLUSIVE with READ or WRITE on one name fails at startup, since the two kinds are
 * different locks in Redis and would not exclude each other.
 */
public enum LockMode {

    /** One call at a time per key (the default). */
    EXCLUSIVE,

    /** The read side of a read-write lock: READ calls on a key run together, never alongside a WRITE call. */
    READ,

    /**
     * The write side of a read-write lock: one call at a time per key, and no READ call meanwhile. A WRITE
     * call may make nested READ calls on the same key (a downgrade); a READ call that makes a nested WRITE
     * call on the same key fails at once with an {@link IllegalMonitorStateException}, since it would wait
     * for itself.
     */
    WRITE;

    /** Whether this mode takes a side of a read-write lock. */
    public boolean readWrite() {
        return this != EXCLUSIVE;
    }
}
