package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * The W5 and W6 rows again, with what the main table cannot show: read waits and write waits apart
 * (a writer's worst wait is the figure a read-write lock is judged by), and the libraries that were
 * skipped because they have no read-write or fair lock.
 */
final class LockKindsTable {

    static final List<String> WORKLOADS = List.of("W5", "W6");

    /** A library left out of W5 or W6, and why. */
    record Skip(String library, String workload, String reason) {
    }

    private LockKindsTable() {
    }

    static void render(List<Result> results, List<Skip> skipped, StringBuilder out) {
        List<Result> rows = results.stream().filter(r -> WORKLOADS.contains(r.workload())).toList();
        if (rows.isEmpty() && skipped.isEmpty()) {
            return;
        }
        out.append("Read-write and fair locks (W5, W6; wait = time in lock()):\n\n");
        out.append("| library | workload | threads | ops/s (median) | writes | p99 read wait µs | max writer wait µs | p99 wait µs | max wait µs | client cmds/op | overlaps | FIFO violations | note |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Result r : rows) {
            boolean w5 = r.workload().equals("W5");
            KindLatency read = r.latencyByKind().get("read");
            KindLatency write = r.latencyByKind().get("write");
            out.append("| ").append(r.library()).append(" | ").append(r.workload()).append(" | ").append(r.threads())
                    .append(" | ").append(Report.count(r.opsPerSecond())).append(" | ").append(w5 ? writeShare(read, write) : "-")
                    .append(" | ").append(read == null ? "-" : Report.micros(read.p99Micros()))
                    .append(" | ").append(write == null ? "-" : Report.micros(write.maxMicros()))
                    .append(" | ").append(Report.micros(r.p99Micros())).append(" | ").append(Report.micros(r.maxMicros()))
                    .append(" | ").append(Report.ratio(r.clientCmdsPerOp())).append(" | ").append(r.overlaps())
                    // the order waiters reached Redis in is known only inside Redis: see the W6 description
                    .append(" | ").append(w5 ? "-" : "not measured").append(" | ").append(r.note()).append(" |\n");
        }
        for (Skip s : skipped) {
            out.append("| ").append(s.library()).append(" | ").append(s.workload())
                    .append(" | - | - | - | - | - | - | - | - | - | - | skipped: ").append(s.reason()).append(" |\n");
        }
        out.append('\n');
    }

    /** Writes among the measured operations: near 10% shows the mix ran as drawn. */
    private static String writeShare(@Nullable KindLatency read, @Nullable KindLatency write) {
        long reads = read == null ? 0 : read.ops();
        long writes = write == null ? 0 : write.ops();
        return reads + writes == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * writes / (reads + writes));
    }
}
