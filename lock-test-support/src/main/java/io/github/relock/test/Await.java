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
        return until(timeout, what, probe, () -> "");
    }

    /** Like {@link #until(Duration, String, Supplier)}; {@code state} describes the situation on timeout. */
    static <T> T until(Duration timeout, String what, Supplier<@Nullable T> probe, Supplier<String> state) {
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
                        + "; last: " + last + describe(state));
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
        untilTrue(timeout, what, condition, () -> "");
    }

    /** Like {@link #until} for a boolean condition; {@code state} describes the situation on timeout. */
    static void untilTrue(Duration timeout, String what, Supplier<Boolean> condition, Supplier<String> state) {
        until(timeout, what, () -> condition.get() ? Boolean.TRUE : null, state);
    }

    private static String describe(Supplier<String> state) {
        try {
            return state.get();
        } catch (RuntimeException e) {
            return " (state unknown: " + e + ")";
        }
    }
}
