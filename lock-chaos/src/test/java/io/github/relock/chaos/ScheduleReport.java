package io.github.relock.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code target/fault-schedule-report.md}: per run its seed, length, operations and faults by kind, the
 * overlaps the documented limits explained, the fencing replay, and the violations by rule with the
 * minimal history of the first ones.
 */
final class ScheduleReport {

    private ScheduleReport() {
    }

    static String write(List<RunResult> results) {
        StringBuilder text = new StringBuilder("# relock random fault schedule\n\n");
        text.append("Generated ").append(Instant.now().truncatedTo(ChronoUnit.SECONDS)).append(", JDK ")
                .append(System.getProperty("java.version")).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores. Replay a run with ")
                .append("`-Drelock.seed=<seed>`.\n\n");
        text.append("| run | seed | schedule | wall | holds | operations | faults | overlaps (explained) ")
                .append("| violations |\n");
        text.append("|---|---|---|---|---|---|---|---|---|\n");
        for (RunResult r : results) {
            text.append(String.format(Locale.ROOT, "| %s | %d | %d s | %d s | %d | %d | %d | %d (%d) | %d |%n",
                    r.plan().label(), r.plan().seed(), r.plan().scheduleMillis() / 1000, r.wallMillis() / 1000,
                    r.holds(), sum(r.operations()), sum(r.faults()), r.overlaps(), sum(r.allowed()),
                    r.violations().size()));
        }
        for (RunResult r : results) {
            section(text, r);
        }
        String report = text.toString();
        Path path = Path.of(System.getProperty("relock.chaos.report", "target/fault-schedule-report.md"));
        try {
            Files.createDirectories(path.toAbsolutePath().getParent());
            Files.writeString(path, report, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not write " + path, ex);
        }
        return report;
    }

    private static void section(StringBuilder text, RunResult r) {
        text.append("\n## ").append(r.plan().label()).append(" (seed ").append(r.plan().seed()).append(")\n\n");
        if (r.plan().broken() != null || r.plan().brokenClose()) {
            text.append("Deliberately broken: ").append(r.plan().broken() != null ? r.plan().broken()
                    : "close() leaks its watchdog and subscription").append(".\n\n");
        }
        r.schedule().phases().forEach(p -> text.append(String.format(Locale.ROOT, "- phase %d: %s, %d s%n",
                p.index(), p.topology(), p.millis() / 1000)));
        text.append("- operations: ").append(join(r.operations())).append('\n');
        text.append("- faults applied: ").append(join(r.faults())).append('\n');
        text.append(String.format(Locale.ROOT, "- claims overlapping in time: %d; explained by a documented limit: "
                        + "%s%n",
                r.overlaps(), r.allowed().isEmpty() ? "none" : join(r.allowed())));
        FencedReplay.Figures f = r.fencing();
        text.append(String.format(Locale.ROOT, "- fenced resource replay: %d token writes, %d stale writes refused, "
                        + "%d stale writes accepted (the resource had not seen the newer token yet), %d current "
                        + "writes refused; raw sweep (lock-core History, every hold overlap in time, before any "
                        + "rule): %d overlaps, %d token regressions%n", f.writes(), f.staleRefused(),
                f.staleAccepted(), f.currentRefused(), f.raw().overlaps(), f.raw().tokenRegressions()));
        text.append(String.format(Locale.ROOT, "- not judged: %d losses reported by unlock() for holds nothing had "
                        + "taken (no tell before, no fault, lease not run out: a release whose retry found a new "
                        + "holder); %d watchdog leases their own client showed lapsed while held (renewal had "
                        + "stopped)%n", r.losses().unexplainedLossReports(), r.losses().lapsedWatchdogLeases()));
        Map<String, Long> byRule = new TreeMap<>();
        r.violations().forEach(v -> byRule.merge(v.rule(), 1L, Long::sum));
        text.append("- violations: ").append(byRule.isEmpty() ? "none" : join(byRule)).append('\n');
        if (r.history().malformed() > 0) {
            text.append("- malformed event lines: ").append(r.history().malformed()).append('\n');
        }
        for (String minimal : r.minimalHistories()) {
            text.append("\n```\n").append(minimal).append("\n```\n");
        }
    }

    private static String join(Map<String, Long> counts) {
        StringBuilder out = new StringBuilder();
        counts.forEach((k, v) -> out.append(out.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
        return out.toString();
    }

    private static long sum(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
