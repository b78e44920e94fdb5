package io.github.relock.benchmarks.report;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** S4: the same workloads standalone and on a 3-primary cluster, and renewal per slot. */
final class ClusterTable {

    private ClusterTable() {
    }

    static void render(List<ClusterResult> rows, List<RenewalResult> renewals, StringBuilder out) {
        if (rows.isEmpty() && renewals.isEmpty()) {
            return;
        }
        if (!rows.isEmpty()) {
            out.append("S4, Redis Cluster (W2 and W3 standalone and on 3 primaries; bus = what the nodes read that no "
                    + "client sent, idle baseline taken out, summed over the nodes that received it):\n\n");
            out.append("| library | workload | topology | threads | ops/s | client cmds/op | PUBLISH/op | SPUBLISH/op "
                    + "| bus pub/sub msgs/release | bus bytes/release | overlaps | errors |\n");
            out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (ClusterResult r : rows) {
                out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d |%n",
                        r.library(), r.workload(), r.topology(), r.threads(), Report.count(r.opsPerSecond()),
                        Report.ratio(r.clientCmdsPerOp()), Report.ratio(r.publishPerOp()),
                        Report.ratio(r.spublishPerOp()), Report.ratio(r.busMessagesPerRelease()),
                        Report.count(r.busBytesPerRelease()), r.overlaps(), r.errors()));
            }
            out.append('\n');
            out.append("S4 client commands per operation, by command (MONITOR on every node):\n\n");
            for (ClusterResult r : rows) {
                out.append("- ").append(r.library()).append(' ').append(r.workload()).append(' ').append(r.topology())
                        .append(": ").append(mix(r.clientMix())).append(r.note().isEmpty() ? "" : " (" + r.note() + ")")
                        .append('\n');
            }
            out.append('\n');
        }
        if (!renewals.isEmpty()) {
            out.append("S4 renewal on the cluster (locks held with no lease, the watchdog workload's timeout; rounds = "
                    + "HEXISTS calls / locks, from INFO commandstats on every node, no MONITOR; floor = one script call "
                    + "per slot, at most 256 locks each):\n\n");
            out.append("| library | names | locks | slots | rounds | floor calls/round | script calls/round | by command "
                    + "| lost |\n");
            out.append("|---|---|---:|---:|---:|---:|---:|---|---:|\n");
            for (RenewalResult r : renewals) {
                out.append(String.format(Locale.ROOT, "| %s | %s | %,d | %,d | %.1f | %,d | %s | %s | %d |%n",
                        r.library(), r.layout(), r.locks(), r.slots(), r.ticks(), r.floorPerTick(),
                        Report.ratio(r.clientCmdsPerTick()), r.note().isEmpty() ? mix(r.mixPerTick()) : r.note(),
                        r.lost()));
            }
            out.append('\n');
        }
        for (String workload : List.of("W2", "W3")) {
            Optional<ClusterResult> standalone = find(rows, workload, false);
            Optional<ClusterResult> cluster = find(rows, workload, true);
            if (standalone.isPresent() && cluster.isPresent()) {
                double a = cluster.get().clientCmdsPerOp();
                double b = standalone.get().clientCmdsPerOp();
                // the MONITOR pass catches operations in flight at both ends, so counts differ by a hair
                verdict(out, "S4 " + workload + ": relock client commands per operation on the cluster = standalone "
                        + "(no more than 5% above)", String.format(Locale.ROOT, "%.2f vs %.2f", a, b), a <= 1.05 * b);
            }
            cluster.ifPresent(c -> verdict(out, "S4 " + workload + ": other primaries receive no pub/sub traffic per "
                    + "release (SPUBLISH stays in the lock's shard)", String.format(Locale.ROOT,
                    "%s bus msgs, %s bytes per release", Report.ratio(c.busMessagesPerRelease()),
                    Report.count(c.busBytesPerRelease())), c.busMessagesPerRelease() == 0));
        }
        renewals.stream().filter(r -> r.library().equals("relock") && r.note().isEmpty()).forEach(r ->
                // a round in flight at either end of the window counts in part for both figures, hence 5%
                verdict(out, "S4 renewal, " + r.layout() + ": relock script calls per round = one per slot "
                        + "(floor " + r.floorPerTick() + ", +5%), 0 lost", String.format(Locale.ROOT,
                        "%.1f per round, %d lost", r.clientCmdsPerTick(), r.lost()),
                        r.clientCmdsPerTick() <= r.floorPerTick() * 1.05 && r.lost() == 0));
        out.append('\n');
    }

    private static Optional<ClusterResult> find(List<ClusterResult> rows, String workload, boolean cluster) {
        return rows.stream().filter(r -> r.library().equals("relock") && r.workload().equals(workload)
                && r.isCluster() == cluster && !Double.isNaN(r.clientCmdsPerOp())).findFirst();
    }

    private static void verdict(StringBuilder out, String target, String figure, boolean met) {
        out.append("- ").append(target).append(": ").append(figure).append(": ").append(met ? "met" : "**not met**")
                .append('\n');
    }

    private static String mix(Map<String, Double> mix) {
        if (mix.isEmpty()) {
            return "-";
        }
        return mix.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .map(e -> e.getKey().toUpperCase(Locale.ROOT) + " " + Report.ratio(e.getValue()))
                .collect(Collectors.joining(", "));
    }
}
