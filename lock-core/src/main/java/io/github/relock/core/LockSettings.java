package io.github.relock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.settings.SettingRules;

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
    public static final Duration MAX_LEASE = SettingRules.MAX_LEASE;

    /**
     * @throws IllegalArgumentException naming the setting that is out of range
     */
    public LockSettings {
        SettingRules.checkWaitTime(waitTime);
        if (leaseTime != null) {
            SettingRules.checkLease("leaseTime", leaseTime);
        }
        if (maxHold != null) {
            SettingRules.checkLease("maxHold", maxHold);
        }
    }

    /** Waits {@code waitTime} for a lock the watchdog keeps, with no maximum hold time. */
    public static LockSettings waitingFor(Duration waitTime) {
        return new LockSettings(waitTime, null, null);
    }
}
