package io.github.relock.core.internal;

import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.ReentrantDistributedLock;

/** A read-write lock: two handles on one Redis hash, told apart by their {@link ReadWriteSide}. */
final class RedisReadWriteLock implements ReadWriteDistributedLock {

    private final String name;
    private final ReentrantDistributedLock readLock;
    private final ReentrantDistributedLock writeLock;

    RedisReadWriteLock(String name, ReentrantDistributedLock readLock, ReentrantDistributedLock writeLock) {
        this.name = name;
        this.readLock = readLock;
        this.writeLock = writeLock;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public ReentrantDistributedLock readLock() {
        return readLock;
    }

    @Override
    public ReentrantDistributedLock writeLock() {
        return writeLock;
    }

    @Override
    public String toString() {
        return "RedisReadWriteLock[" + writeLock.getKey() + "]";
    }
}
