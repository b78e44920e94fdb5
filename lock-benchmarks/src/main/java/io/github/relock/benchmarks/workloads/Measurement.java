package io.github.relock.benchmarks.workloads;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import io.github.relock.benchmarks.report.KindLatency;
import io.github.relock.benchmarks.report.LatencyCurve;
import io.github.relock.benchmarks.report.Result;

/**
 * What one run of one (library, workload) saw. Several runs (rounds, interleaved with the other
 * libraries') are summarised into one table row, because on a shared machine any single run can land on
 * a noisy moment.
 *
 * @param ops            operations completed in the measured window
 * @param seconds        length of the measured window
 * @param latency        latencies of those operations, nanoseconds
 * @param latencyByKind  the same latencies split by kind of operation (W5: read, write); empty for a
 *                       workload with one kind
 * @param calls          commands Redis executed in the window, scripts' inner calls included
 * @param countedOps     operations completed during the MONITOR pass; 0 if there was none
 * @param clientCommands commands clients sent during the MONITOR pass, by name
 * @param clientCpuNanos CPU time of this JVM in the window
 * @param redisCpuNanos  CPU time of redis-server in the window
 * @param clientBytes    bytes allocated by this JVM's threads in the window
 */
public record Measurement(String library, String workload, String threads, long ops, double seconds,
        Histogram latency, Map<String, Histogram> latencyByKind, long calls, long countedOps,
        Map<String, Long> clientCommands, long clientCpuNanos, long redisCpuNanos, long clientBytes, long overlaps,
        long errors, String note) {

    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(120);

    public double opsPerSecond() {
        return seconds > 0 ? ops / seconds : Double.NaN;
    }

    /** A run that could not even start. */
    public static Measurement failed(String library, String workload, String why) {
        return new Measurement(library, workload, "-", 0, 0, new Histogram(HIGHEST_NANOS, 3), Map.of(), 0, 0, Map.of(), 0,
                0, 0, 0, 1, why);
    }

    /**
     * One row from several runs: the median run's throughput (with the spread), latency percentiles over
     * all runs' operations together, and per-operation costs over all runs' totals.
     */
    public static Result summarize(List<Measurement> runs) {
        Measurement first = runs.get(0);
        List<Measurement> valid = runs.stream().filter(m -> m.ops > 0).toList();
        if (valid.isEmpty()) {
            long errors = runs.stream().mapToLong(Measurement::errors).sum();
            return new Result(first.library, first.workload, first.threads, Double.NaN, Double.NaN, Double.NaN, 0,
                    Double.NaN, Double.NaN, Double.NaN, Map.of(), Double.NaN, null, Map.of(), Double.NaN, Double.NaN,
                    Double.NaN, runs.stream().mapToLong(Measurement::overlaps).sum(), Math.max(errors, 1), notes(runs),
                    LatencyCurve.empty());
        }
        List<Double> throughput = new ArrayList<>(valid.stream().map(Measurement::opsPerSecond).toList());
        throughput.sort(Comparator.naturalOrder());
        Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        Map<String, Histogram> byKind = new TreeMap<>();
        long ops = 0;
        long calls = 0;
        long clientCpu = 0;
        long redisCpu = 0;
        long bytes = 0;
        long counted = 0;
        Map<String, Long> commands = new TreeMap<>();
        for (Measurement m : valid) {
            latency.add(m.latency);
            m.latencyByKind.forEach((kind, h) -> byKind.computeIfAbsent(kind, k -> new Histogram(HIGHEST_NANOS, 3))
                    .add(h));
            ops += m.ops;
            calls += m.calls;
            clientCpu += m.clientCpuNanos;
            redisCpu += m.redisCpuNanos;
            bytes += m.clientBytes;
            counted += m.countedOps;
            m.clientCommands.forEach((name, n) -> commands.merge(name, n, Long::sum));
        }
        long countedOps = counted;
        Map<String, Double> mix = new TreeMap<>();
        commands.forEach((name, n) -> mix.put(name, (double) n / countedOps));
        Map<String, KindLatency> latencyByKind = new TreeMap<>();
        byKind.forEach((kind, h) -> latencyByKind.put(kind, new KindLatency(h.getTotalCount(),
                h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0)));
        Double clientPerOp = counted > 0 ? commands.values().stream().mapToLong(Long::longValue).sum() / (double) counted
                : null;
        return new Result(first.library, first.workload, first.threads, median(throughput), throughput.get(0),
                throughput.get(throughput.size() - 1), valid.size(), latency.getValueAtPercentile(50) / 1000.0,
                latency.getValueAtPercentile(99) / 1000.0, latency.getMaxValue() / 1000.0, latencyByKind,
                (double) calls / ops, clientPerOp, mix, clientCpu / 1000.0 / ops, redisCpu / 1000.0 / ops,
                (double) bytes / ops, runs.stream().mapToLong(Measurement::overlaps).sum(),
                runs.stream().mapToLong(Measurement::errors).sum(), notes(runs), LatencyCurve.ofNanos(latency));
    }

    private static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String notes(List<Measurement> runs) {
        return runs.stream().map(Measurement::note).filter(n -> !n.isEmpty()).distinct()
                .reduce((a, b) -> a + "; " + b).orElse("");
    }
}
