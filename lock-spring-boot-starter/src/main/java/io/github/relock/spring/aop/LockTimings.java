package io.github.relock.spring.aop;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Wait and lease for one lock name, as configured in {@code application.yml}.
 *
 * @param waitTime  how long a call waits for the lock (0: one attempt)
 * @param leaseTime a fixed lease, or {@code null} to let the watchdog keep the lock while the method runs
 */
public record LockTimings(Duration waitTime, @Nullable Duration leaseTime) {
}
