package io.github.relock.spring;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;

import io.github.relock.core.DistributedLockException;

/**
 * A {@link DistributedLock @DistributedLock} method did not run because its lock was held elsewhere for
 * the whole wait time (or the wait was interrupted). The method is never run without the lock.
 * {@link #getLockName()} is the lock's name with its key ({@code payments:42}), {@link #getLockKey()} its Redis
 * key, as for every {@link DistributedLockException}.
 */
public class LockNotAcquiredException extends DistributedLockException {

    private static final long serialVersionUID = 1L;

    private final Duration waitTime;
    private final Duration waited;

    /**
     * @param lockName the lock's name with its key, as locked ({@code payments:42})
     * @param lockKey  the Redis key of the lock ({@code lock:{payments:42}})
     * @param waitTime the wait time that applied
     * @param waited   how long the call waited
     * @param cause    an {@link InterruptedException} if the wait was interrupted, else null
     */
    public LockNotAcquiredException(String lockName, String lockKey, Duration waitTime, Duration waited,
            @Nullable Throwable cause) {
        super(lockName, lockKey, "Lock '" + lockName + "' (Redis key " + lockKey + ") was not acquired within "
                + DurationStyle.SIMPLE.print(waitTime) + " (waited " + waited.toMillis() + "ms)"
                + (cause instanceof InterruptedException ? ": the wait was interrupted" : ""), cause);
        this.waitTime = waitTime;
        this.waited = waited;
    }

    /**
     * The lock's name with its key, as locked: {@link DistributedLock#name()} (or its default
     * {@code Class.method}), {@code ':'} and the evaluated key, e.g. {@code payments:42}.
     */
    @Override
    public String getLockName() {
        return Objects.requireNonNull(super.getLockName());
    }

    /** The Redis key of the lock that was held elsewhere, e.g. {@code lock:{payments:42}}. */
    @Override
    public String getLockKey() {
        return Objects.requireNonNull(super.getLockKey());
    }

    /**
     * The Redis key of the lock.
     *
     * @deprecated the same as {@link #getLockKey()}, named as in every {@link DistributedLockException}
     */
    @Deprecated
    public String getKey() {
        return getLockKey();
    }

    /** The wait time that applied to the call. */
    public Duration getWaitTime() {
        return waitTime;
    }

    /** How long the call actually waited. */
    public Duration getWaited() {
        return waited;
    }
}
