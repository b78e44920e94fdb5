package io.github.relock.core;

import org.jspecify.annotations.Nullable;

/**
 * The base of every failure of a lock itself: not acquired in time, lost while held, an operation Redis did not
 * answer, a write refused for a stale fencing token. Catch it to handle all of them at once; configuration errors
 * (a bad key expression, a bad property, an unsupported Redis driver) are {@link IllegalArgumentException}s and
 * {@link IllegalStateException}s instead, since retrying cannot fix them.
 *
 * <p>Two accessors name the lock the same way in every subclass: {@link #getLockName()} is the lock's name, as
 * passed to {@link RedisLockClient#getLock(String)} (for a {@code @DistributedLock} method, the name and the key
 * joined by {@link LockNames#of}, e.g. {@code payments:42}), and {@link #getLockKey()} is the Redis key of the
 * lock, e.g. {@code lock:{payments:42}}.
 */
public class DistributedLockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final @Nullable String lockName;
    private final @Nullable String lockKey;

    /**
     * A failure of lock {@code lockName}, whose Redis key is {@code lockKey}.
     *
     * @param lockName the lock's name, as passed to {@link RedisLockClient#getLock(String)}
     * @param lockKey  the Redis key of the lock, or null if not known
     */
    public DistributedLockException(@Nullable String lockName, @Nullable String lockKey, String message,
            @Nullable Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.lockKey = lockKey;
    }

    /** A failure where no particular lock is known (a stale token seen by the protected resource, say). */
    public DistributedLockException(String message, @Nullable Throwable cause) {
        this(null, null, message, cause);
    }

    /**
     * The lock's name, as passed to {@link RedisLockClient#getLock(String)}: for a {@code @DistributedLock}
     * method, its name and key joined by {@link LockNames#of} (e.g. {@code payments:42}). Never null for a lock
     * not acquired, lost, or whose operation failed; null only where the failure was seen without a lock (a stale
     * fencing token refused by the resource).
     */
    public @Nullable String getLockName() {
        return lockName;
    }

    /**
     * The Redis key of the lock, e.g. {@code lock:{payments:42}} (see {@link ReentrantDistributedLock#getKey()});
     * null where the failure was seen without a lock, or was raised without its key.
     */
    public @Nullable String getLockKey() {
        return lockKey;
    }
}
