package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.DoubleFunction;
import java.util.function.ToDoubleFunction;

/**
 * With {@code --candidate}: the candidate build beside relock as built today, figure by figure, from the same run
 * (W1-W6, W7 reactive, the watchdog, threads per client, S2 when the scale group ran), with their ratio.
 */
final class CandidateTable {

    static final String TODAY = "relock";
    static final String CANDIDATE = "relock-candidate";

    private CandidateTable() {
    }

    static void render(Report report, StringBuilder out) {
        if (report.results().stream().noneMatch(r -> r.library().equals(CANDIDATE))) {
            return;
        }
        out.append("The candidate against today's build (candidate/today: above 1 is more, of whatever the figure "
                + "counts):\n\n");
        out.append("| figure | today | candidate | candidate/today |\n|---|---:|---:|---:|\n");
        for (String w : List.of("W1", "W2", "W3", "W4", "W5", "W6")) {
            Optional<Result> today = find(report, TODAY, w);
            Optional<Result> candidate = find(report, CANDIDATE, w);
            if (today.isEmpty() || candidate.isEmpty()) {
                continue;
            }
            row(out, w + " ops/s", today.get(), candidate.get(), Result::opsPerSecond, Report::count);
            row(out, w + " p99 µs", today.get(), candidate.get(), Result::p99Micros, Report::micros);
            row(out, w + " Redis CPU µs/op", today.get(), candidate.get(), Result::redisCpuMicros, Report::micros);
            row(out, w + " client CPU µs/op", today.get(), candidate.get(), Result::clientCpuMicros, Report::micros);
            row(out, w + " client cmds/op", today.get(), candidate.get(),
                    r -> r.clientCmdsPerOp() == null ? Double.NaN : r.clientCmdsPerOp(), Report::ratio);
        }
        Optional<CallersResult> w7 = variant(report, TODAY + " reactive");
        Optional<CallersResult> w7c = variant(report, CANDIDATE + " reactive");
        if (w7.isPresent() && w7c.isPresent()) {
            row(out, "W7 reactive acquisitions/s", w7.get(), w7c.get(), CallersResult::acquisitionsPerSecond,
                    Report::count);
            row(out, "W7 reactive p99 wait µs", w7.get(), w7c.get(), r -> r.p99WaitMicros(), Report::count);
            row(out, "W7 reactive peak platform threads", w7.get(), w7c.get(), r -> r.peakThreads(), Report::count);
        }
        Optional<WatchdogResult> wd = watchdog(report, TODAY);
        Optional<WatchdogResult> wdc = watchdog(report, CANDIDATE);
        if (wd.isPresent() && wdc.isPresent()) {
            row(out, "watchdog client cmds/s", wd.get(), wdc.get(),
                    w -> w.clientCmdsPerSecond() == null ? Double.NaN : w.clientCmdsPerSecond(), Report::ratio);
            row(out, "watchdog Redis calls/s", wd.get(), wdc.get(), WatchdogResult::callsPerSecond, Report::ratio);
            row(out, "watchdog locks lost", wd.get(), wdc.get(), w -> w.lost(), Report::count);
        }
        Optional<ThreadsResult> th = report.threadsResults().stream().filter(t -> t.library().equals(TODAY) && t.ran())
                .findFirst();
        Optional<ThreadsResult> thc = report.threadsResults().stream()
                .filter(t -> t.library().equals(CANDIDATE) && t.ran()).findFirst();
        if (th.isPresent() && thc.isPresent()) {
            row(out, "threads per client beyond Lettuce's", th.get(), thc.get(), t -> t.ownCount(), Report::count);
        }
        Optional<WaitersResult> s2 = waiters(report, TODAY);
        Optional<WaitersResult> s2c = waiters(report, CANDIDATE);
        if (s2.isPresent() && s2c.isPresent()) {
            row(out, "S2 p99 wake-up µs", s2.get(), s2c.get(), w -> w.p99WakeUpMicros(), Report::count);
        }
        out.append('\n');
    }

    private static <T> void row(StringBuilder out, String figure, T today, T candidate, ToDoubleFunction<T> value,
            DoubleFunction<String> format) {
        double a = value.applyAsDouble(today);
        double b = value.applyAsDouble(candidate);
        out.append("| ").append(figure).append(" | ").append(format.apply(a)).append(" | ").append(format.apply(b))
                .append(" | ").append(a == 0 || Double.isNaN(a) || Double.isNaN(b) ? "-"
                        : String.format(Locale.ROOT, "%.2f×", b / a)).append(" |\n");
    }

    private static Optional<Result> find(Report report, String library, String workload) {
        return report.results().stream().filter(r -> r.library().equals(library) && r.workload().equals(workload)
                && r.opsPerSecond() > 0).findFirst();
    }

    private static Optional<CallersResult> variant(Report report, String name) {
        return report.callersResults().stream().filter(r -> r.variant().equals(name) && r.ran()).findFirst();
    }

    private static Optional<WatchdogResult> watchdog(Report report, String library) {
        return report.watchdogResults().stream().filter(w -> w.library().equals(library)
                && !Double.isNaN(w.callsPerSecond())).findFirst();
    }

    private static Optional<WaitersResult> waiters(Report report, String library) {
        return report.waitersResults().stream().filter(w -> w.library().equals(library) && w.ran()).findFirst();
    }
}
