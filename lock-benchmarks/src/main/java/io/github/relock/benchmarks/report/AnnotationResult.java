package io.github.relock.benchmarks.report;

/**
 * One line of the annotation overhead comparison.
 *
 * @param subject     what was timed
 * @param medianNanos median wall time per call
 * @param meanNanos   mean wall time per call (for SpEL alone: the best round)
 * @param relative    median relative to the direct API call's median (1.0 for the API itself)
 * @param cpuNanos    CPU time of the whole JVM per call, median over the rounds
 * @param cpuRelative median of the per-round CPU ratios to the direct API call
 */
public record AnnotationResult(String subject, double medianNanos, double meanNanos, double relative, double cpuNanos,
        double cpuRelative) {
}
