package io.github.relock.core.internal.client;

import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.kind.ReadWriteSide;

/**
 * A read-write lock: two handles on one Redis hash, told apart by their {@link ReadWriteSide}; the lock itself
 * answers for both sides together.
 */
final class RedisReadWriteLock implements ReadWriteDistributedLock {

    private final String name;
    private final ReentrantDistributedLock readLock;
    private final RedisReentrantLock writeLock;

    RedisReadWriteLock(String name, ReentrantDistributedLock readLock, RedisReentrantLock writeLock) {
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
    public boolean isLocked() {
        return writeLock.ask((commands, keys) -> side(keys).eitherLocked(commands, keys));
    }

    @Override
    public boolean forceUnlock() {
        return writeLock.forceUnlock((commands, keys) -> side(keys).forceUnlockBoth(commands, keys), true);
    }

    private static ReadWriteSide side(LockKeys keys) {
        return (ReadWriteSide) keys.kind();
    }

    @Override
    public String toString() {
        return "RedisReadWriteLock[" + writeLock.getKey() + "]";
    }
}
