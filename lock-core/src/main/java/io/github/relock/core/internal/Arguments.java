package io.github.relock.core.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Checks on what callers pass in, with messages that name the argument. */
public final class Arguments {

    /** Longer leases are almost certainly a unit mistake (say, millis passed as seconds). */
    public static final Duration MAX_LEASE = Duration.ofDays(365);

    private Arguments() {
    }

    /** Longest lock name, in chars: every script call sends it, and Redis keeps it in every key of the lock. */
    public static final int MAX_NAME_LENGTH = 1024;

    public static String lockName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be null or blank");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("lock name must be at most " + MAX_NAME_LENGTH + " characters, was "
                    + name.length() + " (starting '" + name.substring(0, 40) + "...'); lock on a shorter key, "
                    + "such as an id or a hash of the value");
        }
        return name;
    }

    public static long leaseMillis(long leaseTime, TimeUnit unit) {
        requireUnit(unit);
        if (leaseTime <= 0) {
            throw new IllegalArgumentException("leaseTime must be positive, was " + leaseTime + " " + unit);
        }
        long millis = unit.toMillis(leaseTime);
        if (millis < 1) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms, was " + leaseTime + " " + unit);
        }
        if (millis > MAX_LEASE.toMillis()) {
            throw new IllegalArgumentException("leaseTime must be at most " + MAX_LEASE.toDays() + " days, was "
                    + leaseTime + " " + unit);
        }
        return millis;
    }

    /** As {@link java.util.concurrent.locks.Lock#tryLock(long, TimeUnit)}: zero or negative means no waiting. */
    public static Duration maxHold(Duration maxHold) {
        if (maxHold == null || maxHold.isNegative() || maxHold.isZero() || maxHold.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("maxHold must be between 1 ms and " + MAX_LEASE.toDays()
                    + " days, was " + maxHold);
        }
        return maxHold;
    }

    public static long waitNanos(long waitTime, TimeUnit unit) {
        requireUnit(unit);
        return Math.max(0, unit.toNanos(waitTime)); // saturates, so a huge wait means "as long as it takes"
    }

    private static void requireUnit(TimeUnit unit) {
        if (unit == null) {
            throw new IllegalArgumentException("unit must not be null");
        }
    }
}
