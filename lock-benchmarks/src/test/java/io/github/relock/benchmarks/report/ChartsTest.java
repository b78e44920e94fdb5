package io.github.relock.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How table rows become chart data, and that the charts come out as PNG files; no Redis needed. */
class ChartsTest {

    @Test
    void barsGroupByWorkloadInRunOrderWithAGapWhereALibraryDidNotRun() {
        List<Result> rows = List.of(row("relock", "W1", "1", 5000), row("redisson", "W1", "1", 4000),
                row("raw", "W1", "1", 5300), row("relock", "W3", "4x4", 6900), row("redisson", "W3", "4x4", 2800),
                row("raw", "W3", "4x4", 3600), row("relock", "W5", "4x4", 5500),
                row("redisson", "W5", "-", Double.NaN));

        Charts.Bars bars = Charts.bars(rows);

        assertEquals(List.of("W1, 1 thread", "W3, 4x4 threads", "W5, 4x4 threads"), bars.workloads());
        assertEquals(List.of("relock", "redisson", "raw"), List.copyOf(bars.byLibrary().keySet()));
        assertEquals(List.of(5000.0, 6900.0, 5500.0), bars.byLibrary().get("relock"));
        // a failed row (NaN) and a skipped one (no row) both leave a gap, never a zero bar
        assertEquals(Arrays.asList(4000.0, 2800.0, null), bars.byLibrary().get("redisson"));
        assertEquals(Arrays.asList(5300.0, 3600.0, null), bars.byLibrary().get("raw"));
    }

    @Test
    void curvesReadTheRowsHistogramInMillisecondsForTheContendedWorkloadOnly() {
        Histogram waits = new Histogram(TimeUnit.SECONDS.toNanos(120), 3);
        for (long micros = 1; micros <= 10_000; micros++) {
            waits.recordValue(micros * 1000);
        }
        List<Result> rows = List.of(row("relock", "W1", "1", 5000, LatencyCurve.ofNanos(waits)),
                row("relock", "W3", "4x4", 6900, LatencyCurve.ofNanos(waits)),
                row("raw", "W3", "-", Double.NaN, LatencyCurve.empty()));

        Charts.Curves curves = Charts.curves(rows, "W3").orElseThrow();

        assertEquals("4x4", curves.threads());
        assertEquals(List.of("p50", "p90", "p99", "p99.9", "p99.99", "max"), curves.labels());
        assertEquals(List.of("relock"), List.copyOf(curves.millisByLibrary().keySet()), "raw completed nothing");
        List<Double> millis = curves.millisByLibrary().get("relock");
        double[] expected = {5.0, 9.0, 9.9, 9.99, 9.999, 10.0};
        for (int i = 0; i < expected.length; i++) {
            // HdrHistogram keeps 3 significant digits
            assertEquals(expected[i], millis.get(i), expected[i] * 0.002, curves.labels().get(i));
        }
        assertTrue(Charts.curves(rows, "W6").isEmpty());
    }

    @Test
    void writesBothChartsBesideTheMarkdownFileAsReadablePngs(@TempDir Path dir) throws IOException {
        Histogram waits = new Histogram(TimeUnit.SECONDS.toNanos(120), 3);
        for (long micros = 100; micros <= 50_000; micros += 7) {
            waits.recordValue(micros * 1000);
        }
        Report report = new Report();
        report.add(row("relock", "W1", "1", 5000, LatencyCurve.ofNanos(waits)));
        report.add(row("relock", "W3", "4x4", 6900, LatencyCurve.ofNanos(waits)));
        report.add(row("redisson", "W3", "4x4", 2800, LatencyCurve.ofNanos(waits)));

        List<Path> written = Charts.write(report, dir.resolve("run.md"));

        assertEquals(List.of(dir.resolve("run-ops.png"), dir.resolve("run-w3-wait.png")), written);
        written.forEach(ChartAssertions::assertChart);
    }

    @Test
    void noContendedRowsMeansNoLatencyChart(@TempDir Path dir) throws IOException {
        Report report = new Report();
        report.add(row("relock", "W1", "1", 5000));

        assertEquals(List.of(dir.resolve("w1-ops.png")), Charts.write(report, dir.resolve("w1.md")));
    }

    private static Result row(String library, String workload, String threads, double ops) {
        return row(library, workload, threads, ops, LatencyCurve.empty());
    }

    private static Result row(String library, String workload, String threads, double ops, LatencyCurve curve) {
        return new Result(library, workload, threads, ops, ops, ops, 1, 1, 2, 3, Map.of(), 2, 2.0, Map.of(), 1, 1, 1,
                0, 0, "", curve);
    }
}
