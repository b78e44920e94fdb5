package io.github.relock.benchmarks.report;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One (library, workload) row of the main table, summarised over several interleaved runs.
 *
 * @param library          library id
 * @param workload         workload id
 * @param threads          e.g. {@code 1} or {@code 4x4}
 * @param opsPerSecond     the median run's operations per second
 * @param opsMin           slowest run
 * @param opsMax           fastest run
 * @param runs             runs that completed operations
 * @param p50Micros        latency median over all runs' operations; what "latency" means is the
 *                         workload's (a pair, the wait in lock(), a re-entry sequence)
 * @param p99Micros        99th percentile
 * @param maxMicros        maximum
 * @param latencyByKind    the same latency by kind of operation (W5: read, write); empty for one kind
 * @param callsPerOp       every command Redis executed per operation, scripts' inner calls included
 *                         ({@code INFO commandstats} deltas over the measured windows)
 * @param clientCmdsPerOp  commands the clients sent per operation (MONITOR pass); null if not counted
 * @param clientMix        those commands by name, per operation
 * @param clientCpuMicros  CPU time of this JVM (every library thread) per operation: unlike throughput,
 *                         it hardly moves when the machine is shared
 * @param redisCpuMicros   CPU time of redis-server per operation ({@code INFO cpu})
 * @param clientBytes      bytes this JVM allocated per operation: deterministic, so small differences
 *                         in a library's own overhead show here when timings are too noisy to tell
 * @param overlaps         critical sections entered while another was inside (must be 0)
 * @param errors           operations that threw
 * @param note             anything the reader must know about this row
 * @param latencyCurve     the same latency at p50 ... max, for the charts; empty if nothing completed
 */
public record Result(String library, String workload, String threads, double opsPerSecond, double opsMin,
        double opsMax, int runs, double p50Micros, double p99Micros, double maxMicros,
        Map<String, KindLatency> latencyByKind, double callsPerOp,
        @Nullable Double clientCmdsPerOp, Map<String, Double> clientMix, double clientCpuMicros,
        double redisCpuMicros, double clientBytes, long overlaps, long errors, String note,
        LatencyCurve latencyCurve) {
}
