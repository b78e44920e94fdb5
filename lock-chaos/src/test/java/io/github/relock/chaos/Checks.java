package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Runs every checker over a finished run's history and gathers the figures of the report. */
final class Checks {

    /** Minimal histories rendered per run: the first violations of each rule ({@code -Drelock.chaos.render=N}). */
    private static final int RENDERED_PER_RULE = Integer.getInteger("relock.chaos.render", 3);

    private Checks() {
    }

    static RunResult run(RunPlan plan, FaultSchedule schedule, ChaosHistory history, long wallMillis) {
        Exposures exposures = new Exposures(history);
        Holds holds = new Holds(history, exposures);
        ExclusionChecker.Result exclusion = ExclusionChecker.check(holds, exposures);
        List<Violation> violations = new ArrayList<>(exclusion.violations());
        violations.addAll(TokenChecker.check(holds));
        violations.addAll(CloseChecker.check(history));
        violations.addAll(StallChecker.check(history, holds, exposures));
        violations.sort(java.util.Comparator.comparingLong(Violation::from));
        Map<String, Long> operations = new TreeMap<>();
        history.all(Ev.Op.class).forEach(op -> operations.merge(op.kind() + " " + outcome(op.result()), 1L, Long::sum));
        history.all(Ev.Force.class).forEach(f -> operations.merge("FORCE_UNLOCK " + f.result(), 1L, Long::sum));
        history.all(Ev.Closed.class).forEach(c -> operations.merge("CLOSE", 1L, Long::sum));
        Map<String, Long> faults = new TreeMap<>();
        history.all(Ev.Fault.class).stream().filter(f -> !f.kind().startsWith("PHASE"))
                .forEach(f -> faults.merge(f.kind() + (f.detail().startsWith("failed") ? " (failed)" : ""), 1L,
                        Long::sum));
        Map<String, Integer> rendered = new TreeMap<>();
        List<String> minimal = new ArrayList<>();
        for (Violation violation : violations) {
            if (rendered.merge(violation.rule(), 1, Integer::sum) <= RENDERED_PER_RULE) {
                minimal.add(MinimalHistory.render(violation, history, holds, exposures));
            }
        }
        return new RunResult(plan, schedule, history, wallMillis, holds.size(), operations, faults,
                exclusion.overlaps(), exclusion.allowedByCause(), FencedReplay.replay(history, holds),
                LossReports.count(history, holds, exposures), violations, minimal);
    }

    private static String outcome(String result) {
        return result.startsWith("error:") ? result : result.replaceAll("[^a-z-].*", "");
    }
}
