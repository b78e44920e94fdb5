package io.github.relock.chaos;

import java.util.List;
import java.util.Map;

/**
 * A run and what the checks found: violations by rule, the overlaps the documented limits explained, and
 * the figures for the report (operations by kind and outcome, faults as applied, fenced-resource replay).
 */
record RunResult(RunPlan plan, FaultSchedule schedule, ChaosHistory history, long wallMillis, int holds,
                 Map<String, Long> operations, Map<String, Long> faults, long overlaps, Map<String, Long> allowed,
                 FencedReplay.Figures fencing, LossReports.Figures losses, List<Violation> violations,
                 List<String> minimalHistories) {

    long violations(String rulePrefix) {
        return violations.stream().filter(v -> v.rule().startsWith(rulePrefix)).count();
    }
}
