package io.github.relock.benchmarks.libraries;

import java.util.List;

/**
 * Where the benchmark's Redis listens: one redis-server, or (S4) a Redis Cluster seeded with
 * {@code clusterNodes} ({@code host:port}, every primary), {@code host}/{@code port} being one of them.
 */
public record RedisTarget(String host, int port, List<String> clusterNodes) {

    public RedisTarget {
        clusterNodes = List.copyOf(clusterNodes);
    }

    public RedisTarget(String host, int port) {
        this(host, port, List.of());
    }

    /** A cluster reached through all of {@code nodes} ({@code host:port}). */
    public static RedisTarget cluster(List<String> nodes) {
        String first = nodes.get(0);
        int colon = first.lastIndexOf(':');
        return new RedisTarget(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)), nodes);
    }

    public boolean isCluster() {
        return !clusterNodes.isEmpty();
    }

    public String uri() {
        return "redis://" + host + ":" + port;
    }
}
