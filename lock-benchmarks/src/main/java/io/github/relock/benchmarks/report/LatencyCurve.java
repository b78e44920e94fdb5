package io.github.relock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;

import org.HdrHistogram.Histogram;

/**
 * A row's latency at fixed percentiles, read from the same HdrHistogram as the table's p50/p99/max:
 * what the latency chart draws. Each step after p90 adds one nine, so evenly spaced points are a log
 * scale of the tail.
 *
 * @param points p50, p90, p99, p99.9, p99.99 and max, in that order; empty if the row completed nothing
 */
public record LatencyCurve(List<Point> points) {

    /** The percentiles kept, max (100) last. */
    public static final List<Double> PERCENTILES = List.of(50.0, 90.0, 99.0, 99.9, 99.99, 100.0);

    /**
     * One point of the curve.
     *
     * @param label      {@code p50} ... {@code p99.99}, or {@code max}
     * @param percentile 50 ... 100
     * @param micros     latency at that percentile
     */
    public record Point(String label, double percentile, double micros) {
    }

    public LatencyCurve {
        points = List.copyOf(points);
    }

    public static LatencyCurve empty() {
        return new LatencyCurve(List.of());
    }

    /** The curve of a histogram recorded in nanoseconds. */
    public static LatencyCurve ofNanos(Histogram nanos) {
        if (nanos.getTotalCount() == 0) {
            return empty();
        }
        List<Point> points = new ArrayList<>();
        for (double p : PERCENTILES) {
            // max as the table shows it, not the top bucket's equivalent value
            long value = p >= 100.0 ? nanos.getMaxValue() : nanos.getValueAtPercentile(p);
            points.add(new Point(label(p), p, value / 1000.0));
        }
        return new LatencyCurve(points);
    }

    static String label(double percentile) {
        if (percentile >= 100.0) {
            return "max";
        }
        String digits = percentile == Math.rint(percentile) ? String.valueOf((long) percentile)
                : String.valueOf(percentile);
        return "p" + digits;
    }
}
