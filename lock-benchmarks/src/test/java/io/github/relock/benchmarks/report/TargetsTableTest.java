package io.github.relock.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/**
 * The targets table decides MET or MISSED from the figures it is given, at the bounds the targets name, and says
 * "not run" with what would measure a figure the run lacks. Figures are made up; nothing is measured.
 */
class TargetsTableTest {

    @Test
    void eachTargetIsMetAtItsBoundAndMissedJustBelowIt() {
        Report report = new Report();
        report.add(result("relock", "W2", 900, 60, 50));
        report.add(result("lean", "W2", 1000, 46, 40));
        report.add(result("si-spin", "W2", 900, 1, 1));
        report.add(result("si-pubsub", "W2", 901, 1, 1));
        report.add(result("relock", "W1", 949, 1, 1));
        report.add(result("lean", "W1", 1000, 1, 1));
        report.add(result("relock", "W3", 2000, 1000, 2000));
        report.add(result("redisson", "W3", 1000, 1200, 9000));
        report.add(result("si-pubsub", "W3", 500, 1000, 2000));

        String table = render(report);

        assertEquals(TargetsTable.MET, verdict(table, "W2: ≥ 0.9× the lean floor"));
        assertEquals(TargetsTable.MET, verdict(table, "W2: ≥ Spring Integration (si-spin)"));
        assertEquals(TargetsTable.MISSED, verdict(table, "W2: ≥ Spring Integration (si-pubsub)"));
        assertEquals(TargetsTable.MISSED, verdict(table, "Redis CPU per uncontended pair ≤ 1.3× the lean floor's"),
                "60 µs against 46 µs is 1.304×");
        assertEquals(TargetsTable.MISSED, verdict(table, "W1: ≥ 0.95× the lean floor"));
        assertEquals(TargetsTable.MET, verdict(table, "W3: ≥ 2× Redisson acquisitions/s"));
        assertEquals(TargetsTable.MET, verdict(table, "W3: p99 wait ≤ the best peer's p99"), "ties si-pubsub's p99");
        assertTrue(row(table, "W3: p99 wait ≤ the best peer's p99").contains("(si-pubsub)"), table);
        assertEquals(TargetsTable.MET, verdict(table, "W3: max wait ≤ 5× own p99"));
    }

    @Test
    void aFigureTheRunLacksIsNotRunWithWhatWouldMeasureIt() {
        Report report = new Report();
        report.add(result("relock", "W2", 900, 60, 50));

        String table = render(report);

        assertTrue(verdict(table, "W2: ≥ 0.9× the lean floor").startsWith(TargetsTable.NOT_RUN + " (needs W2 with lean"),
                table);
        assertTrue(verdict(table, "W7: ≥ 2× Redisson reactive on ≤ 20 platform threads").contains("needs W7"), table);
        assertTrue(verdict(table, "S2: p99 wake-up after a release ≤ 5 ms").contains("needs scale or S2"), table);
        assertTrue(verdict(table, "S1: heap per hold ≤ 500 B").contains("needs scale"), table);
        assertTrue(verdict(table, "Threads per client beyond Lettuce's ≤ 2").contains("needs threads"), table);
    }

    @Test
    void w7S1AndThreadsAreJudgedFromTheirOwnResults() {
        Report report = new Report();
        report.add(result("relock", "W2", 1, 1, 1));
        report.add(new CallersResult("relock reactive", 10_000, 2000, 1, 1, 20, 4, 1, 2, 0, ""));
        report.add(new CallersResult("redisson reactive", 10_000, 1000, 1, 1, 60, 40, 1, 2, 0, ""));
        report.add(new ScaleResult("relock", 100_000, 501, 300, 250, List.of(), 1, 1, 0, 1, 1, 1, ""));
        report.add(new ThreadsResult("relock", Map.of("relock-scheduler-ID", 1, "relock-events-ID", 1), 3, 1, 0, ""));

        String table = render(report);

        assertEquals(TargetsTable.MET, verdict(table, "W7: ≥ 2× Redisson reactive on ≤ 20 platform threads"));
        assertEquals(TargetsTable.MISSED, verdict(table, "S1: heap per hold ≤ 500 B"));
        assertEquals(TargetsTable.FIGURE, verdict(table, "S1: Redis memory per held lock, beside Redisson's"));
        assertEquals(TargetsTable.MET, verdict(table, "Threads per client beyond Lettuce's ≤ 2"));
    }

    private static String render(Report report) {
        StringBuilder out = new StringBuilder();
        TargetsTable.render(report, out);
        return out.toString();
    }

    private static String row(String table, String target) {
        Optional<String> row = table.lines().filter(l -> l.startsWith("| " + target + " |")).findFirst();
        assertTrue(row.isPresent(), "no row '" + target + "' in\n" + table);
        return row.get();
    }

    private static String verdict(String table, String target) {
        String[] cells = row(table, target).split(" \\| ");
        return cells[cells.length - 1].replace(" |", "");
    }

    private static Result result(String library, String workload, double ops, double redisCpu, double p99) {
        return new Result(library, workload, "1", ops, ops, ops, 1, p99 / 2, p99, p99 * 5, Map.of(), 10, 2.0, Map.of(),
                1, redisCpu, 1, 0, 0, "", LatencyCurve.empty());
    }
}
