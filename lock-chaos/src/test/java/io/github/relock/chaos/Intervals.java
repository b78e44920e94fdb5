package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Sets of instants as sorted, disjoint {@code [from, to)} intervals of nanoTime, and what the checks do with them. */
final class Intervals {

    static final long FOREVER = Long.MAX_VALUE;

    private Intervals() {
    }

    static List<long[]> union(List<long[]> intervals) {
        List<long[]> sorted = new ArrayList<>();
        for (long[] interval : intervals) {
            if (interval[1] > interval[0]) {
                sorted.add(interval.clone());
            }
        }
        sorted.sort(Comparator.comparingLong(i -> i[0]));
        List<long[]> merged = new ArrayList<>();
        for (long[] interval : sorted) {
            long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last != null && interval[0] <= last[1]) {
                last[1] = Math.max(last[1], interval[1]);
            }
            else {
                merged.add(interval);
            }
        }
        return merged;
    }

    static List<long[]> intersect(List<long[]> a, List<long[]> b) {
        List<long[]> out = new ArrayList<>();
        for (long[] x : a) {
            for (long[] y : b) {
                long from = Math.max(x[0], y[0]);
                long to = Math.min(x[1], y[1]);
                if (to > from) {
                    out.add(new long[] {from, to});
                }
            }
        }
        return union(out);
    }

    static List<long[]> minus(List<long[]> a, List<long[]> b) {
        List<long[]> out = new ArrayList<>();
        for (long[] x : union(a)) {
            long from = x[0];
            for (long[] y : union(b)) {
                if (y[1] <= from || y[0] >= x[1]) {
                    continue;
                }
                if (y[0] > from) {
                    out.add(new long[] {from, y[0]});
                }
                from = Math.max(from, y[1]);
            }
            if (from < x[1]) {
                out.add(new long[] {from, x[1]});
            }
        }
        return out;
    }

    /** Everything before {@code to}. */
    static List<long[]> before(List<long[]> a, long to) {
        return intersect(a, List.of(new long[] {Long.MIN_VALUE, to}));
    }

    static long length(List<long[]> intervals) {
        long total = 0;
        for (long[] interval : intervals) {
            total += interval[1] - interval[0];
        }
        return total;
    }
}
