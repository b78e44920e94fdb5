package io.github.relock.benchmarks.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.github.relock.benchmarks.libraries.RedisTarget;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * One redis-server's traffic counters, for S4: what it read in all ({@code rchar} of {@code /proc/PID/io}),
 * what its clients sent it ({@code total_net_input_bytes}, which leaves the cluster bus out), the pub/sub
 * messages the cluster bus brought it, and its command statistics. Bytes read minus client bytes is what
 * arrived over the cluster bus (plus small reads such as {@code /proc/self/stat}, taken out by an idle baseline).
 */
public final class NodeCounters implements AutoCloseable {

    /** The counters at one moment. */
    public record Snapshot(long bytesRead, long clientBytesIn, long publishReceived, long shardPublishReceived,
            CommandStats commands) {

        /** Bytes that did not come from clients: cluster bus, plus the server's own small file reads; -1 if unknown. */
        public long nonClientBytes() {
            return bytesRead < 0 ? -1 : bytesRead - clientBytesIn;
        }

        public Snapshot minus(Snapshot before) {
            return new Snapshot(bytesRead < 0 || before.bytesRead < 0 ? -1 : bytesRead - before.bytesRead,
                    clientBytesIn - before.clientBytesIn,
                    publishReceived - before.publishReceived, shardPublishReceived - before.shardPublishReceived,
                    commands.minus(before.commands));
        }

        public Snapshot plus(Snapshot other) {
            java.util.Map<String, Long> calls = new java.util.TreeMap<>(commands.calls());
            other.commands.calls().forEach((name, n) -> calls.merge(name, n, Long::sum));
            return new Snapshot(bytesRead < 0 || other.bytesRead < 0 ? -1 : bytesRead + other.bytesRead,
                    clientBytesIn + other.clientBytesIn,
                    publishReceived + other.publishReceived, shardPublishReceived + other.shardPublishReceived,
                    new CommandStats(calls));
        }

        public static Snapshot zero() {
            return new Snapshot(0, 0, 0, 0, new CommandStats(java.util.Map.of()));
        }
    }

    private final RedisTarget target;
    private final long pid;
    private final boolean cluster;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    public NodeCounters(RedisTarget target, long pid, boolean cluster) {
        this.target = target;
        this.pid = pid;
        this.cluster = cluster;
        this.client = RedisClient.create(RedisURI.create(target.host(), target.port()));
        this.connection = client.connect();
        this.redis = connection.sync();
    }

    public RedisTarget target() {
        return target;
    }

    public Snapshot read() {
        long clientIn = infoLong(redis.info("stats"), "total_net_input_bytes");
        long publish = 0;
        long shard = 0;
        if (cluster) {
            String info = redis.clusterInfo();
            publish = infoLong(info, "cluster_stats_messages_publish_received");
            shard = infoLong(info, "cluster_stats_messages_publishshard_received");
        }
        CommandStats commands = CommandStats.parse(redis.info("commandstats"));
        return new Snapshot(rchar(), clientIn, publish, shard, commands);
    }

    /** Sums a reading of every node. */
    public static Snapshot readAll(List<NodeCounters> nodes) {
        Snapshot sum = Snapshot.zero();
        for (NodeCounters node : nodes) {
            sum = sum.plus(node.read());
        }
        return sum;
    }

    private long rchar() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "io"))) {
                if (line.startsWith("rchar:")) {
                    return Long.parseLong(line.substring("rchar:".length()).strip());
                }
            }
        }
        catch (IOException ex) {
            // not Linux, or not our process: bytes read are then unknown
        }
        return -1;
    }

    // a counter the server does not have yet (no message of that kind so far) is 0
    private static long infoLong(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).strip());
            }
        }
        return 0;
    }

    /** Drops every key on this node. */
    public void flushAll() {
        redis.flushall();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
    }
}
