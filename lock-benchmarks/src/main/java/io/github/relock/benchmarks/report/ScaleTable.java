package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The {@code scale} table (S1 many held locks, S3 key churn) and its targets. */
final class ScaleTable {

    private ScaleTable() {
    }

    static void render(List<ScaleResult> rows, StringBuilder out) {
        if (rows.isEmpty()) {
            return;
        }
        out.append("Scale (S1: locks held at once with no lease, renewed; S3: distinct keys locked once each by 16 threads; "
                + "heap after GC):\n\n");
        out.append("| library | S1 locks | heap B/hold | Redis B/lock | Redis calls/s | client cmds/s | lost | S3 keys | heap KB at 1/10 | heap KB at end | growth |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ScaleResult r : rows) {
            if (!r.note().isEmpty()) {
                out.append("| ").append(r.library()).append(" | ").append(r.note()).append(" | | | | | | | | | |\n");
                continue;
            }
            out.append(String.format(Locale.ROOT, "| %s | %,d | %.0f | %.0f | %s | %s | %d | %,d | %,.0f | %,.0f | %+.1f%% |%n",
                    r.library(), r.heldLocks(), r.heapPerHold(), r.redisPerLock(), Report.count(r.redisCallsPerSec()),
                    Report.ratio(r.clientCmdsPerSec()), r.lost(), r.churnKeys(), r.heapAtTenthKb(), r.heapAtEndKb(),
                    r.churnGrowthPercent()));
        }
        out.append('\n');
        Optional<ScaleResult> relock = find(rows, "relock");
        Optional<ScaleResult> redisson = find(rows, "redisson");
        relock.ifPresent(a -> {
            verdict(out, "S1 heap per hold <= 300 B", String.format(Locale.ROOT, "%.0f B", a.heapPerHold()),
                    a.heapPerHold() <= 300);
            verdict(out, "S1 0 locks lost", a.lost() + " lost", a.lost() == 0);
            verdict(out, "S3 heap at the end within 10% of the heap at a tenth of the keys",
                    String.format(Locale.ROOT, "%+.1f%%", a.churnGrowthPercent()), a.churnGrowthPercent() <= 10);
            redisson.ifPresent(b -> verdict(out, "S1 Redis memory per lock <= Redisson's",
                    String.format(Locale.ROOT, "%.0f vs %.0f B", a.redisPerLock(), b.redisPerLock()),
                    a.redisPerLock() <= b.redisPerLock()));
        });
        out.append('\n');
    }

    private static void verdict(StringBuilder out, String target, String figure, boolean met) {
        out.append("- ").append(target).append(": ").append(figure).append(": ").append(met ? "met" : "**not met**")
                .append('\n');
    }

    private static Optional<ScaleResult> find(List<ScaleResult> rows, String library) {
        return rows.stream().filter(r -> r.library().equals(library) && r.note().isEmpty()).findFirst();
    }
}
