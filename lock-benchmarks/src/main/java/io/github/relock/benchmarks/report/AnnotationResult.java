package io.github.relock.benchmarks.report;

/**
 * One line of the annotation overhead comparison.
 *
 * @param subject     what was timed
 * @param nanosPerOp  median over the rounds, nanoseconds per call
 * @param bestNanos   fastest round
 * @param relative    median relative to the direct API call (1.0 for the API itself)
 */
public record AnnotationResult(String subject, double nanosPerOp, double bestNanos, double relative) {
}
