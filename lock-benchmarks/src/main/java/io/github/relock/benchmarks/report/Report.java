package io.github.relock.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Everything one run found, rendered as Markdown. */
public final class Report {

    private final List<String> header = new ArrayList<>();
    private final List<String> descriptions = new ArrayList<>();
    private final List<Result> results = new ArrayList<>();
    private final List<WatchdogResult> watchdog = new ArrayList<>();
    private final List<CallersResult> callers = new ArrayList<>();
    private final List<ScaleResult> scale = new ArrayList<>();
    private final List<ThreadsResult> threads = new ArrayList<>();
    private final List<ClusterResult> cluster = new ArrayList<>();
    private final List<RenewalResult> renewals = new ArrayList<>();
    private final List<WaitersResult> waiters = new ArrayList<>();
    private final List<LeftoverResult> leftovers = new ArrayList<>();
    private final List<AnnotationResult> annotation = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<LockKindsTable.Skip> skipped = new ArrayList<>();

    public void header(String line) {
        header.add(line);
    }

    public void describe(String line) {
        descriptions.add(line);
    }

    public void add(Result result) {
        results.add(result);
    }

    public void add(CallersResult result) {
        callers.add(result);
    }

    public List<CallersResult> callersResults() {
        return List.copyOf(callers);
    }

    public void add(ScaleResult result) {
        scale.add(result);
    }

    public List<ScaleResult> scaleResults() {
        return List.copyOf(scale);
    }

    public void add(ThreadsResult result) {
        threads.add(result);
    }

    public List<ThreadsResult> threadsResults() {
        return List.copyOf(threads);
    }

    public void add(ClusterResult result) {
        cluster.add(result);
    }

    public List<ClusterResult> clusterResults() {
        return List.copyOf(cluster);
    }

    public void add(RenewalResult result) {
        renewals.add(result);
    }

    public List<RenewalResult> renewalResults() {
        return List.copyOf(renewals);
    }

    public void add(WaitersResult result) {
        waiters.add(result);
    }

    public List<WaitersResult> waitersResults() {
        return List.copyOf(waiters);
    }

    public void add(LeftoverResult result) {
        leftovers.add(result);
    }

    public List<LeftoverResult> leftoverResults() {
        return List.copyOf(leftovers);
    }

    public void add(WatchdogResult result) {
        watchdog.add(result);
    }

    public void add(AnnotationResult result) {
        annotation.add(result);
    }

    public void note(String line) {
        notes.add(line);
    }

    /** A library left out of a workload it has no locks for (W5, W6), with the reason the report shows. */
    public void skip(String library, String workload, String reason) {
        skipped.add(new LockKindsTable.Skip(library, workload, reason));
    }

    public List<Result> results() {
        return List.copyOf(results);
    }

    public List<WatchdogResult> watchdogResults() {
        return List.copyOf(watchdog);
    }

    public List<AnnotationResult> annotationResults() {
        return List.copyOf(annotation);
    }

    public List<String> notes() {
        return List.copyOf(notes);
    }

    /** "library workload" of every skipped pair. */
    public List<String> skipped() {
        return skipped.stream().map(s -> s.library() + " " + s.workload()).toList();
    }

    public String render() {
        StringBuilder out = new StringBuilder();
        out.append("## relock benchmark run\n\n");
        header.forEach(line -> out.append("- ").append(line).append('\n'));
        out.append('\n');
        if (!results.isEmpty()) {
            out.append("| library | workload | threads | ops/s (median) | min–max | p50 µs | p99 µs | max µs | Redis calls/op | client cmds/op | client CPU µs/op | Redis CPU µs/op | client alloc B/op | overlaps | errors |\n");
            out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (Result r : results) {
                out.append("| ").append(r.library()).append(" | ").append(r.workload()).append(" | ").append(r.threads())
                        .append(" | ").append(count(r.opsPerSecond())).append(" | ").append(count(r.opsMin()))
                        .append("–").append(count(r.opsMax())).append(" | ").append(micros(r.p50Micros()))
                        .append(" | ").append(micros(r.p99Micros())).append(" | ").append(micros(r.maxMicros()))
                        .append(" | ").append(ratio(r.callsPerOp())).append(" | ")
                        .append(r.clientCmdsPerOp() == null ? "-" : ratio(r.clientCmdsPerOp())).append(" | ")
                        .append(micros(r.clientCpuMicros())).append(" | ").append(micros(r.redisCpuMicros())).append(" | ")
                        .append(count(r.clientBytes())).append(" | ")
                        .append(r.overlaps()).append(" | ").append(r.errors()).append(" |\n");
            }
            out.append('\n');
            out.append("Client commands per operation, by command (MONITOR pass):\n\n");
            for (Result r : results) {
                out.append("- ").append(r.library()).append(' ').append(r.workload()).append(": ")
                        .append(mix(r.clientMix())).append(r.note().isEmpty() ? "" : " (" + r.note() + ")").append('\n');
            }
            out.append('\n');
        }
        LockKindsTable.render(results, skipped, out);
        CallersTable.render(callers, out);
        ThreadsTable.render(threads, out);
        ScaleTable.render(scale, out);
        ClusterTable.render(cluster, renewals, out);
        WaitersTable.render(waiters, out);
        LeftoverTable.render(leftovers, out);
        if (!watchdog.isEmpty()) {
            out.append("| library | locks held | window s | Redis calls/s | client cmds/s | client cmds/s by command | lost |\n");
            out.append("|---|---:|---:|---:|---:|---|---:|\n");
            for (WatchdogResult w : watchdog) {
                if (Double.isNaN(w.callsPerSecond())) {
                    out.append("| ").append(w.library()).append(" | ").append(w.locks()).append(" | - | - | - | ")
                            .append(w.note()).append(" | - |\n");
                    continue;
                }
                out.append("| ").append(w.library()).append(" | ").append(w.locks()).append(" | ")
                        .append(String.format(Locale.ROOT, "%.1f", w.seconds())).append(" | ")
                        .append(ratio(w.callsPerSecond())).append(" | ")
                        .append(w.clientCmdsPerSecond() == null ? "-" : ratio(w.clientCmdsPerSecond())).append(" | ")
                        .append(mix(w.clientMix())).append(" | ").append(w.lost()).append(" |\n");
            }
            out.append('\n');
        }
        if (!annotation.isEmpty()) {
            out.append("| annotation overhead | wall ns/call, median | wall ns/call, mean | median vs direct API | CPU ns/call | CPU vs direct |\n");
            out.append("|---|---:|---:|---:|---:|---:|\n");
            for (AnnotationResult a : annotation) {
                out.append("| ").append(a.subject()).append(" | ").append(count(a.medianNanos())).append(" | ")
                        .append(count(a.meanNanos())).append(" | ").append(times(a.relative())).append(" | ")
                        .append(count(a.cpuNanos())).append(" | ").append(times(a.cpuRelative())).append(" |\n");
            }
            out.append('\n');
        }
        CandidateTable.render(this, out);
        TargetsTable.render(this, out);
        if (!descriptions.isEmpty()) {
            out.append("Workloads and libraries:\n\n");
            descriptions.forEach(d -> out.append("- ").append(d).append('\n'));
            out.append('\n');
        }
        notes.forEach(n -> out.append(n).append('\n'));
        return out.toString();
    }

    // ---------------------------------------------------------------------------------------------

    static String count(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    static String micros(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        return value >= 100 ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.1f", value);
    }

    static String times(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.3f×", value);
    }

    static String ratio(Double value) {
        if (value == null || value.isNaN()) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String mix(Map<String, Double> mix) {
        if (mix.isEmpty()) {
            return "-";
        }
        return mix.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .map(e -> e.getKey().toUpperCase(Locale.ROOT) + " " + ratio(e.getValue()))
                .collect(Collectors.joining(", "));
    }
}
