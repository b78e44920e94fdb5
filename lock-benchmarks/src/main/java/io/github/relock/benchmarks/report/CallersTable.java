package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.Locale;

/** The W7 table; its target (relock reactive at least 2x Redisson reactive, on at most 20 platform threads) is in {@link TargetsTable}. */
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
    }

    private static String millis(long micros) {
        return String.format(Locale.ROOT, "%.1f", micros / 1000.0);
    }
}
