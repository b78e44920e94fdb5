package io.github.relock.chaos;

import java.security.SecureRandom;

/**
 * One seed per run ({@code -Drelock.seed=N} replays one; otherwise a fresh random one), and independent
 * seeds derived from it for the schedule and for every driver thread, so that each part of a run can be
 * replayed on its own.
 */
final class Seeds {

    private Seeds() {
    }

    static long chosen() {
        String value = System.getProperty("relock.seed", "").trim();
        if (value.isEmpty() || value.startsWith("$")) {
            return new SecureRandom().nextLong();
        }
        return Long.parseLong(value);
    }

    /** A seed for one purpose ("schedule", "jvm1-p3", ...): SplitMix64 over the run seed and the purpose. */
    static long derive(long seed, String purpose) {
        long z = seed + 0x9E3779B97F4A7C15L * (purpose.hashCode() + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
