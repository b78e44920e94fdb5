package io.github.relock.benchmarks.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The targets table: every performance target checked against this run's own figures and printed MET or MISSED
 * beside them, or "not run" with the workload that would measure it. The default run measures all but S1 and S2,
 * which the {@code scale} group adds. With a candidate build in the run, its rows follow relock's.
 */
final class TargetsTable {

    static final String MET = "MET";
    static final String MISSED = "**MISSED**";
    static final String NOT_RUN = "not run";
    /** A figure stated beside a peer's, with no bound to meet. */
    static final String FIGURE = "figure";

    /** Spring Integration's two lock registries ("both modes"). */
    private static final List<String> SPRING_INTEGRATION = List.of("si-spin", "si-pubsub");
    /** The libraries relock's W3 wait is compared with. */
    private static final List<String> PEERS = List.of("redisson", "si-spin", "si-pubsub");

    private final Report report;
    private final String relock;

    private TargetsTable(Report report, String relock) {
        this.report = report;
        this.relock = relock;
    }

    static void render(Report report, StringBuilder out) {
        if (report.results().isEmpty() && report.callersResults().isEmpty() && report.waitersResults().isEmpty()
                && report.scaleResults().isEmpty() && report.threadsResults().isEmpty()) {
            return;
        }
        List<String> rows = new ArrayList<>(new TargetsTable(report, "relock").rows());
        if (report.results().stream().anyMatch(r -> r.library().equals("relock-candidate"))) {
            new TargetsTable(report, "relock-candidate").rows().forEach(row -> rows.add(row.replaceFirst("\\| ",
                    "| [candidate] ")));
        }
        out.append("Targets, checked against this run's figures (S1 and S2 come from the scale group):\n\n");
        out.append("| target | figure in this run | verdict |\n|---|---|---|\n");
        rows.forEach(row -> out.append(row).append('\n'));
        out.append('\n');
    }

    private List<String> rows() {
        List<String> rows = new ArrayList<>();
        w2(rows);
        w1(rows);
        w3(rows);
        w4(rows);
        w5(rows);
        w6(rows);
        w7(rows);
        s2(rows);
        s1AndS3(rows);
        threads(rows);
        watchdog(rows);
        if (relock.equals("relock")) {
            Stream.of("W3", "W5", "W6").forEach(w -> overlaps(w).ifPresent(rows::add));
            report.annotationResults().stream().filter(a -> a.subject().startsWith("@DistributedLock")).findFirst()
                    .ifPresent(a -> rows.add(row("Annotation ≤ 1.05× the direct API call", times(a.relative())
                            + " median wall time per call, " + times(a.cpuRelative()) + " CPU time",
                            a.relative() <= 1.05)));
        }
        return rows;
    }

    private void w2(List<String> rows) {
        Optional<Result> own = find(relock, "W2");
        Optional<Result> lean = find("lean", "W2");
        rows.add(versus("W2: ≥ 0.9× the lean floor", own, lean, 0.9, "W2 with lean"));
        for (String si : SPRING_INTEGRATION) {
            rows.add(versus("W2: ≥ Spring Integration (" + si + ")", own, find(si, "W2"), 1.0, "W2 with " + si));
        }
        if (own.isEmpty() || lean.isEmpty()) {
            rows.add(notRun("Redis CPU per uncontended pair ≤ 1.3× the lean floor's", "W2 with lean"));
            return;
        }
        Result a = own.get();
        Result l = lean.get();
        double cpu = a.redisCpuMicros() / l.redisCpuMicros();
        rows.add(row("Redis CPU per uncontended pair ≤ 1.3× the lean floor's", String.format(Locale.ROOT,
                "%.2f× (%s vs %s µs/pair); %s Redis calls/pair (lean %s), %s client cmds/pair", cpu,
                Report.micros(a.redisCpuMicros()), Report.micros(l.redisCpuMicros()), Report.ratio(a.callsPerOp()),
                Report.ratio(l.callsPerOp()), Report.ratio(a.clientCmdsPerOp())), cpu <= 1.3));
    }

    private void w1(List<String> rows) {
        rows.add(versus("W1: ≥ 0.95× the lean floor", find(relock, "W1"), find("lean", "W1"), 0.95, "W1 with lean"));
    }

    private void w3(List<String> rows) {
        Optional<Result> own = find(relock, "W3");
        rows.add(versus("W3: ≥ 2× Redisson acquisitions/s", own, find("redisson", "W3"), 2.0, "W3 with redisson"));
        Optional<Result> best = PEERS.stream().map(p -> find(p, "W3")).flatMap(Optional::stream)
                .min(Comparator.comparingDouble(Result::p99Micros));
        if (own.isPresent() && best.isPresent()) {
            rows.add(row("W3: p99 wait ≤ the best peer's p99", Report.micros(own.get().p99Micros()) + " µs vs "
                    + Report.micros(best.get().p99Micros()) + " µs (" + best.get().library() + ")",
                    own.get().p99Micros() <= best.get().p99Micros()));
        }
        else {
            rows.add(notRun("W3: p99 wait ≤ the best peer's p99", "W3 with redisson, si-spin or si-pubsub"));
        }
        rows.add(own.map(r -> row("W3: max wait ≤ 5× own p99", String.format(Locale.ROOT, "%s µs max, %.1f× the p99 "
                + "of %s µs", Report.micros(r.maxMicros()), r.maxMicros() / r.p99Micros(), Report.micros(r.p99Micros())),
                r.maxMicros() <= 5 * r.p99Micros())).orElse(notRun("W3: max wait ≤ 5× own p99", "W3")));
    }

    private void w4(List<String> rows) {
        Optional<Result> own = find(relock, "W4");
        rows.add(versus("W4: ≥ 2.5× RAW", own, find("raw", "W4"), 2.5, "W4 with raw"));
        // against the faster registry: then it holds for both
        Optional<Result> si = SPRING_INTEGRATION.stream().map(s -> find(s, "W4")).flatMap(Optional::stream)
                .max(Comparator.comparingDouble(Result::opsPerSecond));
        rows.add(versus("W4: ≥ 1.5× Spring Integration (" + si.map(Result::library).orElse("the faster registry") + ")",
                own, si, 1.5, "W4 with si-spin or si-pubsub"));
    }

    private void w5(List<String> rows) {
        Optional<Result> own = find(relock, "W5");
        Optional<Result> redisson = find("redisson", "W5");
        rows.add(versus("W5: ≥ 1.5× Redisson ops/s", own, redisson, 1.5, "W5 with redisson"));
        if (own.isPresent() && redisson.isPresent()) {
            double a = writerMax(own.get());
            double b = writerMax(redisson.get());
            rows.add(row("W5: longest writer wait ≤ 1/10 of Redisson's", String.format(Locale.ROOT,
                    "%s µs vs %s µs (%.3f×)", Report.micros(a), Report.micros(b), a / b), a <= b / 10));
        }
        else {
            rows.add(notRun("W5: longest writer wait ≤ 1/10 of Redisson's", "W5 with redisson"));
        }
    }

    private void w6(List<String> rows) {
        Optional<Result> own = find(relock, "W6");
        rows.add(versus("W6: ≥ 2× Redisson acquisitions/s", own, find("redisson", "W6"), 2.0, "W6 with redisson"));
        rows.add(own.filter(r -> r.clientCmdsPerOp() != null)
                .map(r -> row("W6: ≤ 4 client commands per acquisition", Report.ratio(r.clientCmdsPerOp())
                        + " client cmds/acq (" + Report.ratio(r.callsPerOp()) + " Redis calls incl. inside scripts)",
                        r.clientCmdsPerOp() <= 4.0))
                .orElse(notRun("W6: ≤ 4 client commands per acquisition", "W6 with --count-duration above 0")));
    }

    private void w7(List<String> rows) {
        String target = "W7: ≥ 2× Redisson reactive on ≤ 20 platform threads";
        Optional<CallersResult> own = variant(relock + " reactive");
        Optional<CallersResult> redisson = variant("redisson reactive");
        if (own.isEmpty() || redisson.isEmpty()) {
            rows.add(notRun(target, "W7"));
            return;
        }
        CallersResult a = own.get();
        double times = a.acquisitionsPerSecond() / redisson.get().acquisitionsPerSecond();
        rows.add(row(target, String.format(Locale.ROOT, "%.2f× (%s vs %s acq/s); %d platform threads at the peak, %d "
                + "added by the run", times, Report.count(a.acquisitionsPerSecond()),
                Report.count(redisson.get().acquisitionsPerSecond()), a.peakThreads(), a.addedThreads()),
                times >= 2 && a.peakThreads() <= 20));
    }

    private void s2(List<String> rows) {
        Optional<WaitersResult> own = report.waitersResults().stream().filter(w -> w.library().equals(relock)
                && w.ran()).findFirst();
        Optional<WaitersResult> redisson = report.waitersResults().stream().filter(w -> w.library().equals("redisson")
                && w.ran()).findFirst();
        String reference = redisson.map(r -> "; Redisson: " + describe(r)).orElse("");
        if (own.isEmpty()) {
            rows.add(notRun("S2: p99 wake-up after a release ≤ 5 ms", "scale or S2"));
            rows.add(notRun("S2: 0 waiters past their wait time", "scale or S2"));
            rows.add(notRun("S2: one pub/sub connection per client", "scale or S2"));
            rows.add(notRun("S2: PUBSUB NUMSUB back to baseline", "scale or S2"));
            return;
        }
        WaitersResult a = own.get();
        rows.add(row("S2: p99 wake-up after a release ≤ 5 ms", describe(a) + reference,
                a.wakeUps() > 0 && a.p99WakeUpMicros() <= WaitersTable.P99_TARGET_MICROS));
        rows.add(row("S2: 0 waiters past their wait time", a.overslept() + " overslept, " + a.unfinished()
                + " unfinished" + redisson.map(r -> "; Redisson " + r.overslept() + " overslept").orElse(""),
                a.overslept() == 0 && a.unfinished() == 0));
        rows.add(row("S2: one pub/sub connection per client", a.peakPubSub() + " at most for " + a.clients()
                + " clients" + redisson.map(r -> "; Redisson " + r.peakPubSub()).orElse(""), a.onePubSubPerClient()));
        rows.add(row("S2: PUBSUB NUMSUB back to baseline", a.before() + " before, " + a.after() + " after",
                a.backToBaseline()));
    }

    private static String describe(WaitersResult r) {
        return String.format(Locale.ROOT, "%.2f ms p99, %.2f ms max, %,d waiters on %,d keys at %s acq/s",
                r.p99WakeUpMicros() / 1000.0, r.maxWakeUpMicros() / 1000.0, r.waiters(), r.keys(),
                Report.count(r.waiters() / r.seconds()));
    }

    private void s1AndS3(List<String> rows) {
        Optional<ScaleResult> own = scale(relock);
        Optional<ScaleResult> redisson = scale("redisson");
        rows.add(own.map(a -> row("S1: heap per hold ≤ 500 B", String.format(Locale.ROOT, "%.0f B%s", a.heapPerHold(),
                redisson.map(b -> String.format(Locale.ROOT, " (Redisson %.0f B)", b.heapPerHold())).orElse("")),
                a.heapPerHold() <= 500)).orElse(notRun("S1: heap per hold ≤ 500 B", "scale")));
        rows.add(own.map(a -> figure("S1: Redis memory per held lock, beside Redisson's", String.format(Locale.ROOT,
                "%.0f B used_memory, %.0f B in its keys%s; what each key holds: the S1 lines under the scale table",
                a.redisPerLock(), a.keyBytesPerLock(), redisson.map(b -> String.format(Locale.ROOT,
                        " (Redisson %.0f B, %.0f B)", b.redisPerLock(), b.keyBytesPerLock())).orElse(""))))
                .orElse(notRun("S1: Redis memory per held lock, beside Redisson's", "scale")));
        rows.add(own.map(a -> row("S1: 0 locks lost while renewed", a.lost() + " of " + a.heldLocks() + " lost",
                a.lost() == 0)).orElse(notRun("S1: 0 locks lost while renewed", "scale")));
        Optional<LeftoverResult> left = leftover(relock);
        Optional<LeftoverResult> redissonLeft = leftover("redisson");
        rows.add(left.map(a -> figure("S1: Redis memory per released name, beside Redisson's", String.format(
                Locale.ROOT, "%.2f keys, %.0f B%s: %s", a.keysPerName(), a.bytesPerName(), redissonLeft.map(b ->
                        String.format(Locale.ROOT, " (Redisson %.2f keys, %.0f B)", b.keysPerName(), b.bytesPerName()))
                        .orElse(""), a.leftKeys().isEmpty() ? "nothing left" : String.join("; ", a.leftKeys()))))
                .orElse(notRun("S1: Redis memory per released name, beside Redisson's", "W2")));
        rows.add(own.map(a -> row("S3: heap at the end within 10% of the heap at a tenth of the keys", String.format(
                Locale.ROOT, "%+.1f%% (%,.0f KB at %,d keys)", a.churnGrowthPercent(), a.heapAtEndKb(), a.churnKeys()),
                a.churnGrowthPercent() <= 10)).orElse(notRun("S3: heap at the end within 10% of the heap at a tenth "
                        + "of the keys", "scale")));
    }

    private void threads(List<String> rows) {
        String target = "Threads per client beyond Lettuce's ≤ 2";
        rows.add(report.threadsResults().stream().filter(t -> t.library().equals(relock) && t.ran()).findFirst()
                .map(t -> row(target, t.ownCount() + ": " + ThreadsTable.byName(t), t.ownCount() <= 2))
                .orElse(notRun(target, "threads")));
    }

    private void watchdog(List<String> rows) {
        Predicate<WatchdogResult> ran = w -> !Double.isNaN(w.callsPerSecond());
        Optional<WatchdogResult> own = report.watchdogResults().stream().filter(w -> w.library().equals(relock))
                .filter(ran).findFirst();
        Optional<WatchdogResult> redisson = report.watchdogResults().stream()
                .filter(w -> w.library().equals("redisson")).filter(ran).findFirst();
        String target = "Watchdog: renewal traffic ≤ Redisson's, 0 locks lost";
        if (own.isEmpty() || redisson.isEmpty()) {
            rows.add(notRun(target, "watchdog with redisson"));
            return;
        }
        WatchdogResult a = own.get();
        WatchdogResult b = redisson.get();
        // traffic = what crosses the network; the calls scripts make inside Redis are shown beside it
        boolean met = a.clientCmdsPerSecond() != null && b.clientCmdsPerSecond() != null
                && a.clientCmdsPerSecond() <= b.clientCmdsPerSecond() && a.lost() == 0;
        rows.add(row(target, Report.ratio(a.clientCmdsPerSecond()) + " vs " + Report.ratio(b.clientCmdsPerSecond())
                + " client cmds/s; " + Report.ratio(a.callsPerSecond()) + " vs " + Report.ratio(b.callsPerSecond())
                + " Redis calls/s; lost " + a.lost() + " vs " + b.lost(), met));
    }

    /** Overlaps of every library in a contended workload. */
    private Optional<String> overlaps(String workload) {
        List<Result> rows = report.results().stream().filter(r -> r.workload().equals(workload)).toList();
        if (rows.isEmpty()) {
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
        return report.results().stream().filter(r -> r.library().equals(library) && r.workload().equals(workload)
                && r.opsPerSecond() > 0).findFirst();
    }

    private Optional<CallersResult> variant(String name) {
        return report.callersResults().stream().filter(r -> r.variant().equals(name) && r.ran()).findFirst();
    }

    private Optional<ScaleResult> scale(String library) {
        return report.scaleResults().stream().filter(r -> r.library().equals(library) && r.note().isEmpty())
                .findFirst();
    }

    private Optional<LeftoverResult> leftover(String library) {
        return report.leftoverResults().stream().filter(r -> r.library().equals(library) && r.note().isEmpty())
                .findFirst();
    }

    private static String versus(String target, Optional<Result> own, Optional<Result> other, double factor,
            String needs) {
        if (own.isEmpty() || other.isEmpty()) {
            return notRun(target, needs);
        }
        double ratio = own.get().opsPerSecond() / other.get().opsPerSecond();
        return row(target, String.format(Locale.ROOT, "%.2f× (%s vs %s ops/s)", ratio,
                Report.count(own.get().opsPerSecond()), Report.count(other.get().opsPerSecond())), ratio >= factor);
    }

    private static String row(String target, String figure, boolean met) {
        return "| " + target + " | " + figure + " | " + (met ? MET : MISSED) + " |";
    }

    private static String figure(String target, String figure) {
        return "| " + target + " | " + figure + " | " + FIGURE + " |";
    }

    private static String notRun(String target, String needs) {
        return "| " + target + " | - | " + NOT_RUN + " (needs " + needs + ") |";
    }

    private static String times(double value) {
        return Report.times(value);
    }
}
