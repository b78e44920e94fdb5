package io.github.relock.core.reliability;

import java.time.Duration;
import java.util.Locale;

/**
 * {@code -Drelock.soak=30m} (or {@code 90s}, {@code 2h}, an ISO {@code PT30M}): scenarios that can run
 * longer do, for manual runs. Unset in {@code ./mvnw verify}, which keeps to its time budget.
 */
public final class Soak {

    private Soak() {
    }

    public static boolean enabled() {
        return !duration().isZero();
    }

    public static Duration duration() {
        String value = System.getProperty("relock.soak", "").trim().toLowerCase(Locale.ROOT);
        if (value.isEmpty() || value.startsWith("$")) {
            return Duration.ZERO;
        }
        if (value.startsWith("pt")) {
            return Duration.parse(value.toUpperCase(Locale.ROOT));
        }
        long amount = Long.parseLong(value.replaceAll("[a-z]+$", ""));
        return switch (value.replaceAll("^[0-9]+", "")) {
            case "ms" -> Duration.ofMillis(amount);
            case "s", "" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> throw new IllegalArgumentException("relock.soak: use e.g. 30m, 90s or 2h, was " + value);
        };
    }
}
