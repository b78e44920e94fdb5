package io.github.relock.core;

import org.jspecify.annotations.Nullable;

/**
 * The owner held the lock, but no longer does: its lease ran out or it was force-unlocked. Work done
 * under the lock may have overlapped with another holder's. {@link #getLockName()} and {@link #getLockKey()}
 * name the lost lock.
 */
public class LockLostException extends DistributedLockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param lockName the lock's name, as passed to {@link RedisLockClient#getLock(String)}
     * @param lockKey  the Redis key of the lock
     */
    public LockLostException(String lockName, @Nullable String lockKey, String message) {
        super(lockName, lockKey, message, null);
    }

    /**
     * A loss whose Redis key is not known: {@link #getLockKey()} is null.
     *
     * @deprecated pass the lock's Redis key: {@link #LockLostException(String, String, String)}
     */
    @Deprecated
    public LockLostException(String lockName, String message) {
        this(lockName, null, message);
    }
}
