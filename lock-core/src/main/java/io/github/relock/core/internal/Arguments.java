package io.github.relock.core.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Checks on what callers pass in, with messages that name the argument. */
public final class Arguments {

    /** Longer leases are almost certainly a unit mistake (say, millis passed as seconds). */
    public static final Duration MAX_LEASE = Duration.ofDays(365);

    private Arguments() {
    }

    public static String lockName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be null or blank");
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

    public static long waitNanos(long waitTime, TimeUnit unit) {
        requireUnit(unit);
        if (waitTime < 0) {
            throw new IllegalArgumentException("waitTime must not be negative, was " + waitTime + " " + unit);
        }
        return unit.toNanos(waitTime); // saturates, so a huge wait means "as long as it takes"
    }

    private static void requireUnit(TimeUnit unit) {
        if (unit == null) {
            throw new IllegalArgumentException("unit must not be null");
        }
    }
}
