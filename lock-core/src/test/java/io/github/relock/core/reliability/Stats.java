package io.github.relock.core.reliability;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** Percentiles of a sample of millisecond figures. */
final class Stats {

    private final List<Long> sorted;

    Stats(Collection<Long> values) {
        this.sorted = new ArrayList<>(values);
        this.sorted.sort(null);
    }

    int count() {
        return sorted.size();
    }

    /** Nearest-rank percentile, e.g. {@code percentile(99)}. */
    long percentile(double p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    long min() {
        return sorted.isEmpty() ? 0 : sorted.get(0);
    }

    long max() {
        return sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1);
    }

    @Override
    public String toString() {
        return "n=" + count() + " min " + min() + " p50 " + percentile(50) + " p99 " + percentile(99) + " max " + max();
    }
}
