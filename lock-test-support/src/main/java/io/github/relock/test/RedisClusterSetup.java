package io.github.relock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.cluster.SlotHash;

/**
 * A Redis Cluster of {@code redis-server} processes on loopback: by default 3 primaries, no replicas, the
 * 16384 slots split evenly, {@code cluster-node-timeout} 2000. Works with Redis 6.2 (no Redis 7 commands).
 *
 * <pre>{@code
 * try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
 *     LettuceConnectionFactory factory = cluster.newConnectionFactory();
 *     int slot = SlotHash.getSlot("lock:{order:42}");
 *     cluster.migrateSlot(slot, otherNode);    // clients follow MOVED
 * }
 * }</pre>
 *
 * <p>{@link #nodes()} lists the primaries first (in slot order), then the replicas (those of the first
 * primary first). Thread-safe.
 */
public final class RedisClusterSetup implements AutoCloseable {

    private static final int SLOTS = SlotHash.SLOT_COUNT;
    private static final int ADDSLOTS_CHUNK = 1000;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration AGREEMENT_TIMEOUT = Duration.ofSeconds(10);

    private final int primaries;
    private final int replicasPerPrimary;
    private final List<RedisServer> nodes = new ArrayList<>();
    private final Map<RedisServer, String> ids = new HashMap<>();
    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private boolean closed;

    private RedisClusterSetup(int primaries, int replicasPerPrimary) {
        this.primaries = primaries;
        this.replicasPerPrimary = replicasPerPrimary;
    }

    /** Starts 3 primaries without replicas and waits until every node reports {@code cluster_state:ok}. */
    public static RedisClusterSetup start() {
        return start(3, 0);
    }

    /**
     * Starts {@code primaries} primaries with {@code replicasPerPrimary} replicas each and waits (up to 20 s)
     * until every node reports {@code cluster_state:ok}, knows all nodes and all slots, and replicas are synced.
     */
    public static RedisClusterSetup start(int primaries, int replicasPerPrimary) {
        if (primaries < 1 || replicasPerPrimary < 0) {
            throw new IllegalArgumentException("need at least 1 primary and 0 or more replicas per primary, got "
                    + primaries + " and " + replicasPerPrimary);
        }
        RedisClusterSetup setup = new RedisClusterSetup(primaries, replicasPerPrimary);
        try {
            setup.boot();
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
        return setup;
    }

    private synchronized void boot() {
        int total = primaries * (1 + replicasPerPrimary);
        for (int i = 0; i < total; i++) {
            RedisServer node = RedisServer.builder()
                    .arg("--cluster-enabled", "yes",
                            "--cluster-config-file", "nodes.conf",
                            "--cluster-node-timeout", "2000",
                            "--cluster-announce-ip", "127.0.0.1")
                    .start();
            nodes.add(node);
            ids.put(node, String.valueOf(node.call("CLUSTER", "MYID")));
        }
        for (int i = 0; i < primaries; i++) {
            RedisServer primary = nodes.get(i);
            // distinct epochs up front, as redis-cli --cluster create does, so no epoch collision to resolve
            primary.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            addSlots(primary, i * SLOTS / primaries, (i + 1) * SLOTS / primaries - 1);
        }
        RedisServer first = nodes.get(0);
        for (RedisServer node : nodes.subList(1, total)) {
            first.call("CLUSTER", "MEET", node.host(), Integer.toString(node.port()));
        }
        Await.untilTrue(READY_TIMEOUT, "every node to know all " + total + " nodes",
                () -> nodes.stream().allMatch(node -> knowsAllNodes(node, total)));
        for (int r = 0; r < primaries * replicasPerPrimary; r++) {
            RedisServer replica = nodes.get(primaries + r);
            RedisServer primary = nodes.get(r / replicasPerPrimary);
            replica.call("CLUSTER", "REPLICATE", ids.get(primary));
        }
        Await.untilTrue(READY_TIMEOUT, "cluster_state:ok with all slots on every node and synced replicas",
                () -> nodes.stream().allMatch(node -> {
                    String info = String.valueOf(node.call("CLUSTER", "INFO"));
                    return "ok".equals(Resp.infoField(info, "cluster_state"))
                            && String.valueOf(SLOTS).equals(Resp.infoField(info, "cluster_slots_assigned"))
                            && String.valueOf(total).equals(Resp.infoField(info, "cluster_known_nodes"))
                            && (nodes.indexOf(node) < primaries || isSyncedReplica(node));
                }));
    }

    /** All nodes: primaries first, then replicas. */
    public synchronized List<RedisServer> nodes() {
        return List.copyOf(nodes);
    }

    /**
     * A new, started cluster factory seeded with every node (5 s command timeout, adaptive topology refresh).
     * The caller destroys it; {@link #close()} does too.
     */
    public synchronized LettuceConnectionFactory newConnectionFactory() {
        List<String> addresses = nodes.stream().map(node -> node.host() + ":" + node.port())
                .collect(Collectors.toList());
        LettuceConnectionFactory factory = LettuceSupport.startedFactory(new RedisClusterConfiguration(addresses),
                LettuceSupport.clusterClientConfiguration(LettuceSupport.DEFAULT_TIMEOUT));
        factories.add(factory);
        return factory;
    }

    /** The primary that owns {@code slot}, as a running node sees it. */
    public synchronized RedisServer nodeForSlot(int slot) {
        checkSlot(slot);
        return byId(clusterNodes(anyRunningNode()).stream()
                .filter(node -> node.isPrimary() && node.owns(slot))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no primary owns slot " + slot))
                .id());
    }

    /** The primary that owns {@code key}'s slot (hash tags respected). */
    public RedisServer nodeForKey(String key) {
        return nodeForSlot(SlotHash.getSlot(key));
    }

    /**
     * Moves {@code slot} with its keys to the primary {@code target}, the way {@code redis-cli --cluster
     * reshard} does: {@code CLUSTER SETSLOT IMPORTING} on the target, {@code MIGRATING} on the source,
     * {@code MIGRATE} of the keys in batches, then {@code SETSLOT NODE} on the target, the source and every
     * other primary. Waits (up to 10 s) until every running node sees the new owner. Clients that cached the
     * old owner get {@code MOVED} and follow it. No-op if {@code target} owns the slot already.
     */
    public synchronized void migrateSlot(int slot, RedisServer target) {
        checkSlot(slot);
        String targetId = idOf(target);
        if (clusterNodes(target).stream().noneMatch(node -> node.id().equals(targetId) && node.isPrimary())) {
            throw new IllegalArgumentException(target + " is not a primary");
        }
        RedisServer source = nodeForSlot(slot);
        if (source == target) {
            return;
        }
        String slotText = Integer.toString(slot);
        target.call("CLUSTER", "SETSLOT", slotText, "IMPORTING", idOf(source));
        source.call("CLUSTER", "SETSLOT", slotText, "MIGRATING", targetId);
        while (true) {
            List<?> keys = (List<?>) Objects.requireNonNull(source.call("CLUSTER", "GETKEYSINSLOT", slotText, "100"));
            if (keys.isEmpty()) {
                break;
            }
            List<String> migrate = new ArrayList<>(List.of("MIGRATE", target.host(), Integer.toString(target.port()),
                    "", "0", "5000", "REPLACE", "KEYS"));
            keys.forEach(key -> migrate.add(String.valueOf(key)));
            source.call(migrate.toArray(String[]::new));
        }
        target.call("CLUSTER", "SETSLOT", slotText, "NODE", targetId);
        source.call("CLUSTER", "SETSLOT", slotText, "NODE", targetId);
        for (RedisServer node : nodes) {
            if (node != target && node != source && node.isRunning() && isPrimary(node)) {
                node.call("CLUSTER", "SETSLOT", slotText, "NODE", targetId);
            }
        }
        Await.untilTrue(AGREEMENT_TIMEOUT, "every node to see slot " + slot + " on " + target,
                () -> nodes.stream().filter(RedisServer::isRunning).allMatch(node -> clusterNodes(node).stream()
                        .anyMatch(view -> view.id().equals(targetId) && view.owns(slot))));
    }

    /** Destroys the factories made here and stops every node. Idempotent. */
    @Override
    public void close() {
        List<LettuceConnectionFactory> toDestroy;
        List<RedisServer> toStop;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toDestroy = new ArrayList<>(factories);
            factories.clear();
            toStop = new ArrayList<>(nodes);
        }
        toDestroy.forEach(LettuceSupport::destroyQuietly);
        toStop.forEach(RedisServer::close);
    }

    @Override
    public synchronized String toString() {
        return "RedisClusterSetup" + nodes;
    }

    // ---------------------------------------------------------------------------------------------

    // ADDSLOTSRANGE is Redis 7 only; ADDSLOTS in chunks keeps each command small.
    private static void addSlots(RedisServer node, int from, int to) {
        for (int start = from; start <= to; start += ADDSLOTS_CHUNK) {
            int end = Math.min(to, start + ADDSLOTS_CHUNK - 1);
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = start; slot <= end; slot++) {
                command.add(Integer.toString(slot));
            }
            node.call(command.toArray(String[]::new));
        }
    }

    private static boolean knowsAllNodes(RedisServer node, int total) {
        List<NodeView> views = clusterNodes(node);
        return views.size() == total && views.stream().noneMatch(view -> view.flags().contains("handshake")
                || view.flags().contains("noaddr"));
    }

    private static boolean isSyncedReplica(RedisServer node) {
        List<?> role = (List<?>) Objects.requireNonNull(node.call("ROLE")); // slave, host, port, state, offset
        return "slave".equals(role.get(0)) && "connected".equals(role.get(3));
    }

    private boolean isPrimary(RedisServer node) {
        String id = idOf(node);
        return clusterNodes(node).stream().anyMatch(view -> view.id().equals(id) && view.isPrimary());
    }

    private String idOf(RedisServer node) {
        String id = ids.get(node);
        if (id == null) {
            throw new IllegalArgumentException(node + " is not a node of this cluster");
        }
        return id;
    }

    private RedisServer byId(String id) {
        return ids.entrySet().stream().filter(entry -> entry.getValue().equals(id)).map(Map.Entry::getKey)
                .findFirst().orElseThrow(() -> new IllegalStateException("unknown node id " + id));
    }

    private RedisServer anyRunningNode() {
        return nodes.stream().filter(node -> node.isRunning() && !node.isPaused()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no cluster node is running"));
    }

    private static void checkSlot(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot out of range: " + slot);
        }
    }

    private static List<NodeView> clusterNodes(RedisServer node) {
        List<NodeView> views = new ArrayList<>();
        for (String line : String.valueOf(node.call("CLUSTER", "NODES")).split("\n")) {
            if (!line.isBlank()) {
                views.add(NodeView.parse(line.trim()));
            }
        }
        return views;
    }

    /** One line of {@code CLUSTER NODES}: id, address, flags, primary id, ..., slot ranges. */
    private record NodeView(String id, String flags, List<int[]> ranges) {

        static NodeView parse(String line) {
            String[] fields = line.split(" ");
            List<int[]> ranges = new ArrayList<>();
            for (int i = 8; i < fields.length; i++) {
                String range = fields[i];
                if (range.startsWith("[")) {
                    continue; // [slot->-id] / [slot-<-id]: a migration in progress, not ownership
                }
                int dash = range.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
                ranges.add(new int[] {from, to});
            }
            return new NodeView(fields[0], fields[2], ranges);
        }

        boolean isPrimary() {
            return flags.contains("master");
        }

        boolean owns(int slot) {
            return ranges.stream().anyMatch(range -> range[0] <= slot && slot <= range[1]);
        }

        @Override
        public String toString() {
            return id + " " + flags;
        }
    }
}
