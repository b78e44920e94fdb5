package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The W7 table, and its target: relock reactive at least 2x Redisson reactive, on at most 20 platform threads. */
final class CallersTable {

    private CallersTable() {
    }

    static void render(List<CallersResult> rows, StringBuilder out) {
        if (rows.isEmpty()) {
            return;
        }
        out.append("Many callers (W7: ").append(rows.get(0).callers() == 0 ? 10_000 : rows.get(0).callers())
                .append(" callers, 100 keys, each holding 1 ms; wait = from wanting the lock to holding it):\n\n");
        out.append("| variant | acquisitions/s | p99 wait ms | max wait ms | peak platform threads | added by the run | heap after GC MB | client cmds/acq | failed | note |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (CallersResult r : rows) {
            if (!r.ran()) {
                out.append("| ").append(r.variant()).append(" | - | - | - | - | - | - | - | - | skipped: ")
                        .append(r.note()).append(" |\n");
                continue;
            }
            out.append("| ").append(r.variant()).append(" | ").append(Report.count(r.acquisitionsPerSecond()))
                    .append(" | ").append(millis(r.p99WaitMicros())).append(" | ").append(millis(r.maxWaitMicros()))
                    .append(" | ").append(r.peakThreads()).append(" | ").append(r.addedThreads())
                    .append(" | ").append(String.format(Locale.ROOT, "%.0f", r.heapBytes() / 1048576.0))
                    .append(" | ").append(Report.ratio(r.clientCmdsPerAcquisition())).append(" | ").append(r.failed())
                    .append(" | |\n");
        }
        out.append('\n');
        Optional<CallersResult> relock = find(rows, "relock reactive");
        Optional<CallersResult> redisson = find(rows, "redisson reactive");
        if (relock.isPresent() && redisson.isPresent()) {
            double times = relock.get().acquisitionsPerSecond() / redisson.get().acquisitionsPerSecond();
            boolean met = times >= 2 && relock.get().peakThreads() <= 20;
            out.append(String.format(Locale.ROOT, "- W7 target (relock reactive >= 2x Redisson reactive, <= 20 "
                    + "platform threads): %.2fx on %d threads: %s%n%n", times, relock.get().peakThreads(),
                    met ? "met" : "NOT met"));
        }
    }

    private static Optional<CallersResult> find(List<CallersResult> rows, String variant) {
        return rows.stream().filter(r -> r.variant().equals(variant) && r.ran()).findFirst();
    }

    private static String millis(long micros) {
        return String.format(Locale.ROOT, "%.1f", micros / 1000.0);
    }
}
