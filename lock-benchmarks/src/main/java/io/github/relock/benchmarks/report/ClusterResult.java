package io.github.relock.benchmarks.report;

import java.util.Map;

/**
 * S4: one library's W2 or W3 run on one topology (standalone or a 3-primary cluster). NaN where not measured.
 *
 * @param opsPerSecond        lock+unlock pairs (W2) or acquisitions (W3) per second, MONITOR off
 * @param clientCmdsPerOp     commands the clients sent per operation, over every node (MONITOR pass)
 * @param clientMix           the same by command
 * @param publishPerOp        PUBLISH calls Redis ran per operation (inside scripts included), every node
 * @param spublishPerOp       SPUBLISH calls per operation
 * @param busMessagesPerRelease pub/sub messages the cluster bus delivered to nodes per announced release
 *                            (PUBLISH + SPUBLISH), summed over the receiving nodes
 * @param busBytesPerRelease  bytes the nodes read that no client sent (the cluster bus), idle baseline taken
 *                            out, per announced release, summed over the receiving nodes
 */
public record ClusterResult(String library, String workload, String topology, String threads, double opsPerSecond,
        double clientCmdsPerOp, Map<String, Double> clientMix, double publishPerOp, double spublishPerOp,
        double busMessagesPerRelease, double busBytesPerRelease, long overlaps, long errors, String note) {

    public static ClusterResult failed(String library, String workload, String topology, String why) {
        return new ClusterResult(library, workload, topology, "-", Double.NaN, Double.NaN, Map.of(), Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, 0, 1, why);
    }

    public boolean isCluster() {
        return topology.startsWith("cluster");
    }
}
