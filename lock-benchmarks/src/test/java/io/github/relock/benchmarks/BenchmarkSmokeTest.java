package io.github.relock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.benchmarks.report.AnnotationResult;
import io.github.relock.benchmarks.report.Report;
import io.github.relock.benchmarks.report.Result;
import io.github.relock.benchmarks.report.WatchdogResult;

/**
 * Every library through every workload for a fraction of a second on a real redis-server: the harness
 * runs end to end, nothing overlaps, nothing throws, and the report renders. Not a measurement.
 */
class BenchmarkSmokeTest {

    @Test
    @Timeout(120)
    void everyLibraryRunsEveryWorkloadWithoutOverlaps() {
        Options options = Options.parse("--duration=200ms", "--warmup=50ms", "--jvm-warmup=0", "--rounds=1", "--count-duration=100ms",
                "--threads=4", "--clients=2", "--client-threads=2", "--watchdog-locks=50", "--watchdog-duration=1s",
                "--watchdog-timeout=900ms", "--annotation-duration=400ms");

        Report report = BenchmarkMain.run(options);

        assertEquals(Options.ALL_LIBRARIES.size() * 4, report.results().size(), "a row per library and W1-W4");
        for (Result row : report.results()) {
            String which = row.library() + " " + row.workload();
            assertEquals(0, row.overlaps(), which + " overlapped");
            assertEquals(0, row.errors(), which + " threw: " + row.note());
            assertTrue(row.opsPerSecond() > 0, which + " completed nothing");
            assertTrue(row.clientCmdsPerOp() != null && row.clientCmdsPerOp() > 0, which + " counted no commands");
        }
        for (WatchdogResult row : report.watchdogResults()) {
            if (!row.note().startsWith("skipped")) {
                assertEquals(0, row.lost(), row.library() + " lost locks its watchdog should have kept");
                assertTrue(row.clientCmdsPerSecond() != null && row.clientCmdsPerSecond() > 0,
                        row.library() + " sent no renewals");
            }
        }
        assertFalse(report.annotationResults().isEmpty(), "annotation overhead missing: " + report.notes());
        assertTrue(report.annotationResults().stream().mapToDouble(AnnotationResult::medianNanos).allMatch(n -> n > 0));
        String markdown = report.render();
        assertTrue(markdown.contains("| relock | W3 |"), markdown);
    }
}
