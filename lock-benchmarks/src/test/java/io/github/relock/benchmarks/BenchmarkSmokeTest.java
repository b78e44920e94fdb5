package io.github.relock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.github.relock.benchmarks.report.AnnotationResult;
import io.github.relock.benchmarks.report.CallersResult;
import io.github.relock.benchmarks.report.ChartAssertions;
import io.github.relock.benchmarks.report.Charts;
import io.github.relock.benchmarks.report.LeftoverResult;
import io.github.relock.benchmarks.report.Report;
import io.github.relock.benchmarks.report.Result;
import io.github.relock.benchmarks.report.ThreadsResult;
import io.github.relock.benchmarks.report.WatchdogResult;

/**
 * Every library through every workload for a fraction of a second on a real redis-server: the harness
 * runs end to end, nothing overlaps, nothing throws, and the report renders and is written with its
 * charts. Not a measurement.
 */
class BenchmarkSmokeTest {

    @Test
    @Timeout(240)
    void everyLibraryRunsEveryWorkloadWithoutOverlaps(@TempDir Path dir) throws IOException {
        // 150 ms warm-up: after 50 ms, relock W6 once completed nothing in its 200 ms window on a loaded 2-core
        // machine (most likely the fair lock's first use in the JVM: scripts loading, code not yet compiled)
        Options options = Options.parse("--duration=200ms", "--warmup=150ms", "--jvm-warmup=0", "--rounds=1", "--count-duration=100ms",
                "--threads=4", "--clients=2", "--client-threads=2", "--watchdog-locks=50", "--watchdog-duration=1s",
                "--watchdog-timeout=900ms", "--annotation-duration=400ms", "--callers=200");

        Report report = BenchmarkMain.run(options);

        // W5 and W6 need read-write and fair locks, which only relock and Redisson have
        assertEquals(Options.ALL_LIBRARIES.size() * 4 + 2 * 2, report.results().size(),
                "a row per library and W1-W4, and per relock/redisson and W5-W6");
        assertEquals(List.of("si-spin W5", "si-pubsub W5", "raw W5", "lean W5", "si-spin W6", "si-pubsub W6", "raw W6",
                "lean W6"), report.skipped());
        for (Result row : report.results()) {
            String which = row.library() + " " + row.workload();
            assertEquals(0, row.overlaps(), which + " overlapped");
            assertEquals(0, row.errors(), which + " threw: " + row.note());
            assertTrue(row.opsPerSecond() > 0, which + " completed nothing");
            assertTrue(row.clientCmdsPerOp() != null && row.clientCmdsPerOp() > 0, which + " counted no commands");
            if (row.workload().equals("W5")) {
                assertTrue(row.latencyByKind().keySet().containsAll(List.of("read", "write")),
                        which + " recorded no read or no write waits: " + row.latencyByKind());
            }
        }
        for (WatchdogResult row : report.watchdogResults()) {
            if (!row.note().startsWith("skipped")) {
                assertEquals(0, row.lost(), row.library() + " lost locks its watchdog should have kept");
                assertTrue(row.clientCmdsPerSecond() != null && row.clientCmdsPerSecond() > 0,
                        row.library() + " sent no renewals");
            }
        }
        // with W2, what each library leaves in Redis per released lock name: the lean floor leaves nothing
        assertEquals(Options.ALL_LIBRARIES, report.leftoverResults().stream().map(LeftoverResult::library).toList());
        for (LeftoverResult row : report.leftoverResults()) {
            assertEquals("", row.note(), row.library() + " keys-left pass");
            assertTrue(row.keysPerName() >= 0 && row.bytesPerName() >= 0, row.toString());
        }
        LeftoverResult lean = report.leftoverResults().stream().filter(r -> r.library().equals("lean")).findFirst()
                .orElseThrow();
        assertEquals(0.0, lean.keysPerName(), "the lean floor deletes its only key: " + lean);
        assertEquals(4, report.callersResults().size(), "a W7 row per variant");
        for (CallersResult row : report.callersResults()) {
            if (row.ran()) {
                assertEquals(0, row.failed(), row.variant() + " had failed calls");
                assertTrue(row.acquisitionsPerSecond() > 0, row.variant() + " completed nothing");
            }
            else {
                assertTrue(row.variant().contains("virtual") && Runtime.version().feature() < 21,
                        row.variant() + " skipped: " + row.note());
            }
        }
        assertFalse(report.annotationResults().isEmpty(), "annotation overhead missing: " + report.notes());
        assertTrue(report.annotationResults().stream().mapToDouble(AnnotationResult::medianNanos).allMatch(n -> n > 0));
        String markdown = report.render();
        assertTrue(markdown.contains("| relock | W3 |"), markdown);
        assertTrue(markdown.contains("| redisson | W5 | 2x2 |") && markdown.contains("| relock | W6 | 2x2 |"), markdown);
        assertTrue(markdown.contains("| raw | W6 | - |") && markdown.contains("skipped: RAW runs only"), markdown);
        assertTrue(markdown.contains("| lean | W2 | 4 |") && markdown.contains("| lean | 0.00 | 0 |"), markdown);
        // every target of the default run is judged from this run's figures; S1 and S2 need the scale group
        for (String target : List.of("W2: ≥ 0.9× the lean floor", "W2: ≥ Spring Integration (si-spin)",
                "W2: ≥ Spring Integration (si-pubsub)", "Redis CPU per uncontended pair ≤ 1.3× the lean floor's",
                "W1: ≥ 0.95× the lean floor", "W3: ≥ 2× Redisson acquisitions/s", "W3: p99 wait ≤ the best peer's p99",
                "W3: max wait ≤ 5× own p99", "W4: ≥ 2.5× RAW", "W5: ≥ 1.5× Redisson ops/s",
                "W5: longest writer wait ≤ 1/10 of Redisson's", "W6: ≥ 2× Redisson acquisitions/s",
                "W6: ≤ 4 client commands per acquisition", "W7: ≥ 2× Redisson reactive on ≤ 20 platform threads",
                "Threads per client beyond Lettuce's ≤ 2")) {
            assertTrue(markdown.contains("| " + target + " | ") && markdown.lines().anyMatch(l -> l.startsWith("| "
                    + target + " | ") && (l.endsWith("| MET |") || l.endsWith("| **MISSED** |"))),
                    target + " judged in\n" + markdown);
        }
        assertTrue(markdown.lines().anyMatch(l -> l.startsWith("| S1: Redis memory per released name, beside Redisson's | ")
                && l.endsWith("| figure |")), markdown);
        assertTrue(markdown.contains("| S2: p99 wake-up after a release ≤ 5 ms | - | not run (needs scale or S2) |"),
                markdown);
        ThreadsResult relockThreads = report.threadsResults().stream().filter(t -> t.library().equals("relock"))
                .findFirst().orElseThrow();
        assertTrue(relockThreads.ran() && relockThreads.ownCount() >= 1, "relock's threads counted: " + relockThreads);

        // --out: the report, then its charts beside it, drawn from this run's rows
        Path out = dir.resolve("smoke.md");
        assertEquals(List.of(out, dir.resolve("smoke-ops.png"), dir.resolve("smoke-w3-wait.png")),
                BenchmarkMain.write(report, out));
        assertEquals(markdown, Files.readString(out));
        ChartAssertions.assertChart(dir.resolve("smoke-ops.png"));
        ChartAssertions.assertChart(dir.resolve("smoke-w3-wait.png"));
        Charts.Bars bars = Charts.bars(report.results());
        assertEquals(List.of("W1", "W2", "W3", "W4", "W5", "W6"), bars.workloads().stream()
                .map(w -> w.substring(0, 2)).toList());
        assertEquals(Options.ALL_LIBRARIES, List.copyOf(bars.byLibrary().keySet()));
        assertEquals(Arrays.asList(null, null), bars.byLibrary().get("raw").subList(4, 6), "raw has no W5, W6 bars");
        assertEquals(Options.ALL_LIBRARIES, List.copyOf(Charts.curves(report.results(), "W3").orElseThrow()
                .millisByLibrary().keySet()), "a W3 wait curve per library");
    }
}
