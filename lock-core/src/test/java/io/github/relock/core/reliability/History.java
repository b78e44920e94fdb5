package io.github.relock.core.reliability;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What happened, hold by hold: for every outermost hold, when the acquisition returned and when the
 * release was invoked, by whom, on which key, with which fencing token. All instants come from
 * {@link System#nanoTime()}, which on Linux reads {@code CLOCK_MONOTONIC}: one clock for the whole
 * machine, so child JVMs report their instants and the parent merges them.
 *
 * <p>The {@link #sweep()} counts, per key, holds that began before an earlier hold on the same key had
 * ended (overlaps), and fencing tokens that did not grow in acquisition order.
 */
public final class History {

    /** One outermost hold. {@code releaseNanos} is when the release was invoked (or the holder died). */
    public record Hold(String client, String thread, String key, long token, long acquiredNanos, long releaseNanos) {

        /** The line a child JVM prints for the parent to {@link #parse(String)}. */
        String line() {
            return "HOLD " + client + " " + thread + " " + key + " " + token + " " + acquiredNanos + " " + releaseNanos;
        }

        static Hold parse(String line) {
            String[] f = line.trim().split(" ");
            if (f.length != 7 || !f[0].equals("HOLD")) {
                throw new IllegalArgumentException("not a HOLD line: " + line);
            }
            return new Hold(f[1], f[2], f[3], Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]));
        }
    }

    /**
     * What the sweep found.
     *
     * @param holds            holds examined
     * @param overlaps         holds that began while an earlier hold on the same key was still open
     * @param maxOverlapNanos  the longest such overlap
     * @param tokenRegressions holds whose token was not greater than the token of the hold before them
     */
    public record Sweep(long holds, long overlaps, long maxOverlapNanos, long tokenRegressions) {

        public long maxOverlapMillis() {
            return maxOverlapNanos / 1_000_000;
        }
    }

    private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();

    public void record(String client, String thread, String key, long token, long acquiredNanos, long releaseNanos) {
        add(new Hold(client, thread, key, token, acquiredNanos, releaseNanos));
    }

    void add(Hold hold) {
        if (hold.releaseNanos() < hold.acquiredNanos()) {
            throw new IllegalArgumentException("released before acquired: " + hold);
        }
        holds.add(hold);
    }

    List<Hold> holds() {
        return List.copyOf(holds);
    }

    int size() {
        return holds.size();
    }

    public Sweep sweep() {
        Map<String, List<Hold>> byKey = new HashMap<>();
        for (Hold hold : holds) {
            byKey.computeIfAbsent(hold.key(), k -> new ArrayList<>()).add(hold);
        }
        long overlaps = 0;
        long maxOverlap = 0;
        long regressions = 0;
        for (List<Hold> keyHolds : byKey.values()) {
            keyHolds.sort(Comparator.comparingLong(Hold::acquiredNanos));
            long openUntil = Long.MIN_VALUE;
            long lastToken = Long.MIN_VALUE;
            for (Hold hold : keyHolds) {
                if (hold.acquiredNanos() < openUntil) {
                    overlaps++;
                    maxOverlap = Math.max(maxOverlap, Math.min(openUntil, hold.releaseNanos()) - hold.acquiredNanos());
                }
                openUntil = Math.max(openUntil, hold.releaseNanos());
                if (hold.token() <= lastToken) {
                    regressions++;
                }
                lastToken = Math.max(lastToken, hold.token());
            }
        }
        return new Sweep(holds.size(), overlaps, maxOverlap, regressions);
    }
}
