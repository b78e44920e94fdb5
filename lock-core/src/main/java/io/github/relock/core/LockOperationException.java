package io.github.relock.core;

import org.jspecify.annotations.Nullable;

/**
 * Redis did not answer a lock operation (unreachable, timed out, or refused the command). Whether the
 * operation took effect is unknown; a lock taken this way expires with its lease. {@link #getLockName()}
 * and {@link #getLockKey()} name the lock the operation was for.
 */
public class LockOperationException extends DistributedLockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param lockName the lock's name, as passed to {@link RedisLockClient#getLock(String)}
     * @param lockKey  the Redis key of the lock
     */
    public LockOperationException(String lockName, @Nullable String lockKey, String message, Throwable cause) {
        super(lockName, lockKey, message, cause);
    }

    /**
     * A failure whose Redis key is not known: {@link #getLockKey()} is null.
     *
     * @deprecated pass the lock's Redis key: {@link #LockOperationException(String, String, String, Throwable)}
     */
    @Deprecated
    public LockOperationException(String lockName, String message, Throwable cause) {
        this(lockName, null, message, cause);
    }
}
