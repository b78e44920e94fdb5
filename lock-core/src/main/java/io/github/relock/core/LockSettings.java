package io.github.relock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How to take a lock, checked once: how long to wait, a fixed lease or the watchdog, and a maximum hold
 * time. {@link ReentrantDistributedLock#tryLock(LockSettings)} takes a lock with them; the starter builds
 * one per annotated method from its annotation and {@code relock.*} properties.
 *
 * @param waitTime  how long to wait; zero: one attempt
 * @param leaseTime a fixed lease between 1 ms and 365 days, or {@code null} for the watchdog
 * @param maxHold   how long a hold may last at most (see {@link ReentrantDistributedLock#withMaxHold}), or
 *                  {@code null} for no limit
 */
public record LockSettings(Duration waitTime, @Nullable Duration leaseTime, @Nullable Duration maxHold) {

    /** Longer leases are almost certainly a unit mistake (say, millis passed as seconds). */
    public static final Duration MAX_LEASE = Duration.ofDays(365);

    /**
     * @throws IllegalArgumentException naming the setting that is out of range
     */
    public LockSettings {
        checkWaitTime(waitTime);
        if (leaseTime != null) {
            checkLease("leaseTime", leaseTime);
        }
        if (maxHold != null) {
            checkLease("maxHold", maxHold);
        }
    }

    /** Waits {@code waitTime} for a lock the watchdog keeps, with no maximum hold time. */
    public static LockSettings waitingFor(Duration waitTime) {
        return new LockSettings(waitTime, null, null);
    }

    /**
     * Checks a configured wait: not negative. ({@link java.util.concurrent.locks.Lock#tryLock(long,
     * java.util.concurrent.TimeUnit)} takes a negative wait as no wait; in settings it is a mistake.)
     *
     * @throws IllegalArgumentException if null or negative
     */
    public static Duration checkWaitTime(Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime cannot be negative (0s makes one attempt), was " + waitTime);
        }
        return waitTime;
    }

    /**
     * Checks a lease-like duration: between 1 ms and 365 days.
     *
     * @throws IllegalArgumentException naming {@code what}
     */
    public static Duration checkLease(String what, Duration duration) {
        if (duration == null || duration.compareTo(Duration.ofMillis(1)) < 0 || duration.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException(what + " must be between 1ms and " + MAX_LEASE.toDays()
                    + " days, was " + duration);
        }
        return duration;
    }
}
