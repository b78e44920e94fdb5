package io.github.relock.test;

/**
 * The size of a load test: full in the main test run; smaller in the runs that repeat the suite on another
 * server or JDK (lock-core's Redis 6.2 run, the JDK 25 pass in {@code .ci/run}), whose point is that server or
 * JDK, not the volume. Set with {@code -Drelock.test.scale=0.25}; the default is 1.
 */
public final class TestScale {

    private TestScale() {
    }

    /** {@code full} times the scale, at least 1. */
    public static int of(int full) {
        String scale = System.getProperty("relock.test.scale", "1");
        double factor;
        try {
            factor = Double.parseDouble(scale);
        }
        catch (NumberFormatException ex) {
            throw new IllegalArgumentException("relock.test.scale must be a number, e.g. 0.25, not '" + scale + "'", ex);
        }
        if (!(factor > 0 && factor <= 1)) {
            throw new IllegalArgumentException("relock.test.scale must be in (0, 1], not " + scale);
        }
        return Math.max(1, (int) Math.round(full * factor));
    }
}
