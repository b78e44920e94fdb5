package io.github.relock.benchmarks.report;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One (library, workload) row of the main table.
 *
 * @param library          library id
 * @param workload         workload id
 * @param threads          e.g. {@code 1} or {@code 4x4}
 * @param opsPerSecond     completed operations per second in the measured window
 * @param p50Micros        latency median; what "latency" means is the workload's (pair, wait, triple)
 * @param p99Micros        99th percentile
 * @param maxMicros        maximum
 * @param callsPerOp       every command Redis executed per operation, scripts' inner calls included
 *                         ({@code INFO commandstats} delta over the measured window)
 * @param clientCmdsPerOp  commands the clients sent per operation (MONITOR pass); null if skipped
 * @param clientMix        those commands by name, per operation
 * @param overlaps         critical sections entered while another was inside (must be 0)
 * @param errors           operations that threw
 * @param note             anything the reader must know about this row
 */
public record Result(String library, String workload, String threads, double opsPerSecond, double p50Micros,
        double p99Micros, double maxMicros, double callsPerOp, @Nullable Double clientCmdsPerOp,
        Map<String, Double> clientMix, long overlaps, long errors, String note) {
}
