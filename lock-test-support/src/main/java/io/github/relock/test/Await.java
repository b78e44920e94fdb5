package io.github.relock.test;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/** Polls a condition until it yields a value, with a deadline and a message that says what was last seen. */
final class Await {

    private static final long POLL_MILLIS = 20;

    private Await() {
    }

    /**
     * Calls {@code probe} until it returns non-null. A probe that throws counts as "not yet" (servers may be
     * restarting); its message shows up in the timeout exception.
     */
    static <T> T until(Duration timeout, String what, Supplier<@Nullable T> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "(no answer)";
        while (true) {
            try {
                T value = probe.get();
                if (value != null) {
                    return value;
                }
                last = "condition not met";
            } catch (RuntimeException e) {
                last = e.toString();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms waiting for " + what
                        + "; last: " + last);
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    /** Like {@link #until} for a boolean condition. */
    static void untilTrue(Duration timeout, String what, Supplier<Boolean> condition) {
        until(timeout, what, () -> condition.get() ? Boolean.TRUE : null);
    }
}
