package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.Locale;

/** The {@code scale} table (S1 many held locks, with what their keys hold; S3 key churn); its targets are in {@link TargetsTable}. */
final class ScaleTable {

    private ScaleTable() {
    }

    static void render(List<ScaleResult> rows, StringBuilder out) {
        if (rows.isEmpty()) {
            return;
        }
        out.append("Scale (S1: locks held at once with no lease, renewed; S3: distinct keys locked once each by 16 threads; "
                + "heap after GC):\n\n");
        out.append("| library | S1 locks | heap B/hold | Redis B/lock (used_memory) | keys B/lock (MEMORY USAGE) | Redis calls/s | client cmds/s | lost | S3 keys | heap KB at 1/10 | heap KB at end | growth |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ScaleResult r : rows) {
            if (!r.note().isEmpty()) {
                out.append("| ").append(r.library()).append(" | ").append(r.note()).append(" | | | | | | | | | | |\n");
                continue;
            }
            out.append(String.format(Locale.ROOT, "| %s | %,d | %.0f | %.0f | %.0f | %s | %s | %d | %,d | %,.0f | %,.0f | %+.1f%% |%n",
                    r.library(), r.heldLocks(), r.heapPerHold(), r.redisPerLock(), r.keyBytesPerLock(), Report.count(r.redisCallsPerSec()),
                    Report.ratio(r.clientCmdsPerSec()), r.lost(), r.churnKeys(), r.heapAtTenthKb(), r.heapAtEndKb(),
                    r.churnGrowthPercent()));
        }
        out.append('\n');
        for (ScaleResult r : rows) {
            if (r.note().isEmpty() && !r.heldKeys().isEmpty()) {
                out.append(String.format(Locale.ROOT, "- S1 %s, the keys of a held lock (NAME = the lock name; %.0f B of "
                        + "MEMORY USAGE per lock, %.0f B of used_memory, which also counts Redis's own entry for each key "
                        + "and its expiry): %s%n", r.library(), r.keyBytesPerLock(), r.redisPerLock(),
                        String.join("; ", r.heldKeys())));
            }
        }
        out.append('\n');
    }
}
