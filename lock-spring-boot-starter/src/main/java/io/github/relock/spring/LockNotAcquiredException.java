package io.github.relock.spring;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;

/**
 * A {@link DistributedLock @DistributedLock} method did not run because its lock was held elsewhere for
 * the whole wait time (or the wait was interrupted). The method is never run without the lock.
 */
public class LockNotAcquiredException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final String key;
    private final Duration waitTime;
    private final Duration waited;

    public LockNotAcquiredException(String lockName, String key, Duration waitTime, Duration waited,
            @Nullable Throwable cause) {
        super("Lock '" + lockName + "' (Redis key " + key + ") was not acquired within " + DurationStyle.SIMPLE.print(waitTime)
                + " (waited " + waited.toMillis() + "ms)"
                + (cause instanceof InterruptedException ? ": the wait was interrupted" : ""), cause);
        this.lockName = lockName;
        this.key = key;
        this.waitTime = waitTime;
        this.waited = waited;
    }

    /** The logical lock name: {@link DistributedLock#name()} or its default {@code Class.method}. */
    public String getLockName() {
        return lockName;
    }

    /** The Redis key of the lock that was held elsewhere, e.g. {@code lock:{payments:42}}. */
    public String getKey() {
        return key;
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
