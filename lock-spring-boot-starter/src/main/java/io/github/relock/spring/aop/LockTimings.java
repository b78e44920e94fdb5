package io.github.relock.spring.aop;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Wait, lease and maximum hold time for one lock name, as configured in {@code application.yml}.
 *
 * @param waitTime  how long a call waits for the lock (0: one attempt)
 * @param leaseTime a fixed lease, or {@code null} to let the watchdog keep the lock while the method runs
 * @param maxHold   how long a call may hold the lock at most before it is released and reported lost, or
 *                  {@code null} for no limit
 */
public record LockTimings(Duration waitTime, @Nullable Duration leaseTime, @Nullable Duration maxHold) {

    public LockTimings(Duration waitTime, @Nullable Duration leaseTime) {
        this(waitTime, leaseTime, null);
    }
}
