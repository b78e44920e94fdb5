package io.github.relock.core.internal.lock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.relock.core.LockSettings;
import io.github.relock.core.internal.settings.SettingRules;

/** The lock methods' arguments in the units the scripts use, checked by the rules of {@link LockSettings}. */
public final class Arguments {

    private Arguments() {
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
        if (millis > LockSettings.MAX_LEASE.toMillis()) {
            throw new IllegalArgumentException("leaseTime must be at most " + LockSettings.MAX_LEASE.toDays()
                    + " days, was " + leaseTime + " " + unit);
        }
        return millis;
    }

    /** As {@link java.util.concurrent.locks.Lock#tryLock(long, TimeUnit)}: zero or negative means no waiting. */
    public static long waitNanos(long waitTime, TimeUnit unit) {
        requireUnit(unit);
        return Math.max(0, unit.toNanos(waitTime)); // saturates, so a huge wait means "as long as it takes"
    }

    /** As {@link #waitNanos(long, TimeUnit)}, for a {@code Duration}; centuries saturate. */
    public static long waitNanos(Duration waitTime) {
        if (waitTime == null) {
            throw new IllegalArgumentException("waitTime must not be null (0s makes one attempt)");
        }
        if (waitTime.isNegative()) {
            return 0;
        }
        try {
            return waitTime.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE;
        }
    }

    /** A lease as {@link SettingRules#checkLease} allows, in milliseconds. */
    public static long leaseMillis(Duration leaseTime) {
        return SettingRules.checkLease("leaseTime", leaseTime).toMillis();
    }

    private static void requireUnit(TimeUnit unit) {
        if (unit == null) {
            throw new IllegalArgumentException("unit must not be null");
        }
    }
}
