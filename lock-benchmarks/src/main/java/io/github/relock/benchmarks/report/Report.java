package io.github.relock.benchmarks.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Everything one run found, rendered as Markdown. */
public final class Report {

    private final List<String> header = new ArrayList<>();
    private final List<String> descriptions = new ArrayList<>();
    private final List<Result> results = new ArrayList<>();
    private final List<WatchdogResult> watchdog = new ArrayList<>();
    private final List<CallersResult> callers = new ArrayList<>();
    private final List<ScaleResult> scale = new ArrayList<>();
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
        List<String> targets = targets();
        if (!targets.isEmpty()) {
            out.append("| target | figure in this run | verdict |\n|---|---|---|\n");
            targets.forEach(t -> out.append(t).append('\n'));
            out.append('\n');
        }
        if (!descriptions.isEmpty()) {
            out.append("Workloads and libraries:\n\n");
            descriptions.forEach(d -> out.append("- ").append(d).append('\n'));
            out.append('\n');
        }
        notes.forEach(n -> out.append(n).append('\n'));
        return out.toString();
    }

    // ---------------------------------------------------------------------------------------------
    // the targets, checked against this run's own figures

    private List<String> targets() {
        List<String> rows = new ArrayList<>(targets("relock"));
        if (results.stream().anyMatch(r -> r.library().equals("relock-candidate"))) {
            targets("relock-candidate").forEach(row -> rows.add(row.replaceFirst("\\| ", "| [candidate] ")));
        }
        return rows;
    }

    private List<String> targets(String relockId) {
        List<String> rows = new ArrayList<>();
        for (String w : List.of("W1", "W2")) {
            find(relockId, w).ifPresent(relock -> {
                find("raw", w).ifPresent(raw -> rows.add(throughputTarget(w + ": relock ≥ 0.9× RAW", relock, raw, 0.9)));
                find("redisson", w).ifPresent(r -> rows.add(throughputTarget(w + ": relock ≥ 1.2× Redisson", relock, r, 1.2)));
            });
        }
        find(relockId, "W2").ifPresent(relock -> rows.addAll(leanTargets(relock)));
        find(relockId, "W3").ifPresent(relock -> {
            find("redisson", "W3").ifPresent(r -> {
                rows.add(throughputTarget("W3: relock ≥ 1.5× Redisson acquisitions/s", relock, r, 1.5));
                rows.add(row("W3: relock p99 wait ≤ Redisson's", micros(relock.p99Micros()) + " µs vs "
                        + micros(r.p99Micros()) + " µs", relock.p99Micros() <= r.p99Micros()));
            });
            if (relock.clientCmdsPerOp() != null) {
                rows.add(row("W3: relock ≤ 3 Redis commands per acquisition", ratio(relock.clientCmdsPerOp())
                        + " client cmds/acq (" + ratio(relock.callsPerOp()) + " calls incl. inside scripts)",
                        relock.clientCmdsPerOp() <= 3.0));
            }
        });
        overlaps(relockId, "W3").ifPresent(rows::add);
        find(relockId, "W4").ifPresent(relock -> {
            find("raw", "W4").ifPresent(raw -> rows.add(throughputTarget("W4: relock ≥ 2.5× RAW", relock,
                    raw, 2.5)));
            // the faster of Spring Integration's two lock registries
            Stream.of("si-spin", "si-pubsub").map(si -> find(si, "W4")).flatMap(Optional::stream)
                    .max(Comparator.comparingDouble(Result::opsPerSecond))
                    .ifPresent(si -> rows.add(throughputTarget("W4: relock ≥ 1.5× Spring Integration ("
                            + si.library() + ")", relock, si, 1.5)));
        });
        find(relockId, "W5").ifPresent(relock -> find("redisson", "W5").ifPresent(r -> {
            rows.add(throughputTarget("W5: relock ≥ 2× Redisson ops/s", relock, r, 2.0));
            double a = writerMax(relock);
            double b = writerMax(r);
            rows.add(row("W5: relock max writer wait ≤ Redisson's", micros(a) + " µs vs " + micros(b) + " µs", a <= b));
        }));
        overlaps(relockId, "W5").ifPresent(rows::add);
        find(relockId, "W6").ifPresent(relock -> {
            find("redisson", "W6").ifPresent(r -> rows.add(throughputTarget("W6: relock ≥ 2× Redisson acquisitions/s",
                    relock, r, 2.0)));
            if (relock.clientCmdsPerOp() != null) {
                rows.add(row("W6: relock ≤ 4 client commands per acquisition", ratio(relock.clientCmdsPerOp())
                        + " client cmds/acq (" + ratio(relock.callsPerOp()) + " calls incl. inside scripts)",
                        relock.clientCmdsPerOp() <= 4.0));
            }
            // only Redis knows the order waiters reached it in; relock's FairLockTest reads it from relock's line
            rows.add("| W6: 0 FIFO violations | not measured here; relock's FairLockTest checks it against the line "
                    + "Redis keeps | not measured |");
        });
        overlaps(relockId, "W6").ifPresent(rows::add);
        Optional<WatchdogResult> relockWd = watchdog.stream().filter(w -> w.library().equals(relockId)
                && !Double.isNaN(w.callsPerSecond())).findFirst();
        Optional<WatchdogResult> redissonWd = watchdog.stream().filter(w -> w.library().equals("redisson")
                && !Double.isNaN(w.callsPerSecond())).findFirst();
        if (relockWd.isPresent() && redissonWd.isPresent()) {
            WatchdogResult a = relockWd.get();
            WatchdogResult b = redissonWd.get();
            // traffic = what crosses the network; the calls scripts make inside Redis are shown beside it
            boolean met = a.clientCmdsPerSecond() != null && b.clientCmdsPerSecond() != null
                    && a.clientCmdsPerSecond() <= b.clientCmdsPerSecond() && a.lost() == 0;
            rows.add(row("Watchdog: relock renewal traffic ≤ Redisson's", ratio(a.clientCmdsPerSecond()) + " vs "
                    + ratio(b.clientCmdsPerSecond()) + " client cmds/s; " + ratio(a.callsPerSecond()) + " vs "
                    + ratio(b.callsPerSecond()) + " Redis calls/s; lost " + a.lost() + " vs " + b.lost(), met));
        }
        annotation.stream().filter(a -> a.subject().startsWith("@DistributedLock") && relockId.equals("relock"))
                .findFirst().ifPresent(a ->
                rows.add(row("Annotation ≤ 1.05× the direct API call", times(a.relative()) + " median wall time per call, "
                        + times(a.cpuRelative()) + " CPU time", a.relative() <= 1.05)));
        return rows;
    }

    /**
     * Server work per uncontended pair against the lean floor (the leanest owner-checked
     * reentrant scripts), and throughput against it and against Spring Integration.
     */
    private List<String> leanTargets(Result relock) {
        List<String> rows = new ArrayList<>();
        Optional<Result> lean = find("lean", "W2");
        rows.add(row("W2: relock ≤ 9 Redis calls per lock/unlock pair, fencing kept",
                ratio(relock.callsPerOp()) + " calls/pair" + lean.map(l -> " (lean floor " + ratio(l.callsPerOp())
                        + ", no fencing)").orElse(""), relock.callsPerOp() <= 9.0));
        lean.ifPresent(l -> {
            double cpu = relock.redisCpuMicros() / l.redisCpuMicros();
            rows.add(row("W2: relock Redis CPU per pair ≤ 1.1× the lean floor's", String.format(Locale.ROOT,
                    "%.2f× (%s vs %s µs/pair)", cpu, micros(relock.redisCpuMicros()), micros(l.redisCpuMicros())),
                    cpu <= 1.1));
            rows.add(throughputTarget("W2: relock ≥ 0.95× the lean floor", relock, l, 0.95));
        });
        // the faster of Spring Integration's two lock registries
        Stream.of("si-spin", "si-pubsub").map(si -> find(si, "W2")).flatMap(Optional::stream)
                .max(Comparator.comparingDouble(Result::opsPerSecond))
                .ifPresent(si -> rows.add(throughputTarget("W2: relock ≥ Spring Integration ("
                        + si.library() + ")", relock, si, 1.0)));
        return rows;
    }

    /** Overlaps of every library in a contended workload; once, under relock's own rows, not the candidate's. */
    private Optional<String> overlaps(String relockId, String workload) {
        List<Result> rows = results.stream().filter(r -> r.workload().equals(workload)).toList();
        if (rows.isEmpty() || !relockId.equals("relock")) {
            return Optional.empty();
        }
        long overlaps = rows.stream().mapToLong(Result::overlaps).sum();
        return Optional.of(row(workload + ": 0 overlaps", rows.stream().map(r -> r.library() + " " + r.overlaps())
                .collect(Collectors.joining(", ")), overlaps == 0));
    }

    /** The longest a writer waited in W5; NaN if no write ran, which then misses the target. */
    private static double writerMax(Result w5) {
        KindLatency write = w5.latencyByKind().get("write");
        return write == null ? Double.NaN : write.maxMicros();
    }

    private Optional<Result> find(String library, String workload) {
        return results.stream().filter(r -> r.library().equals(library) && r.workload().equals(workload)
                && r.opsPerSecond() > 0).findFirst();
    }

    private static String throughputTarget(String name, Result relock, Result other, double factor) {
        double ratio = relock.opsPerSecond() / other.opsPerSecond();
        return row(name, String.format(Locale.ROOT, "%.2f× (%s vs %s ops/s)", ratio, count(relock.opsPerSecond()),
                count(other.opsPerSecond())), ratio >= factor);
    }

    private static String row(String target, String figure, boolean met) {
        return "| " + target + " | " + figure + " | " + (met ? "met" : "**missed**") + " |";
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
