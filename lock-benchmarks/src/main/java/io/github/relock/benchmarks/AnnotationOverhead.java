package io.github.relock.benchmarks;

import io.github.relock.benchmarks.report.Report;
import io.github.relock.benchmarks.workloads.RunContext;

/** Placeholder until the starter exists: says so in the report. */
final class AnnotationOverhead {

    private AnnotationOverhead() {
    }

    static void run(RunContext context, Report report) {
        report.note("Annotation overhead: not measured (lock-spring-boot-starter not available yet).");
    }
}
