package io.github.relock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A primary, one replica and three Sentinels, all {@code redis-server} processes on loopback. Sentinel
 * master name {@value #MASTER_NAME}, quorum 2, {@code down-after-milliseconds} {@value #DOWN_AFTER_MILLIS},
 * {@code failover-timeout} 2000, {@code parallel-syncs} 1.
 *
 * <pre>{@code
 * try (RedisSentinelSetup sentinel = RedisSentinelSetup.start()) {
 *     LettuceConnectionFactory factory = sentinel.newConnectionFactory();
 *     sentinel.failover();          // the replica is primary now; clients reconnect through Sentinel
 *     sentinel.primary().kill();    // or: killPrimaryAndAwaitFailover()
 * }
 * }</pre>
 *
 * <p>{@link #primary()} and {@link #replica()} follow the roles as Sentinel sees them, so they swap on each
 * failover. Sentinel acts on its own too: a primary that is paused or killed for more than two seconds
 * gets failed over. Thread-safe.
 */
public final class RedisSentinelSetup implements AutoCloseable {

    /** The Sentinel master name. */
    public static final String MASTER_NAME = "mymaster";

    /**
     * How long a primary may be silent before a Sentinel calls it down. Not 1000: Sentinel pings every
     * 1000 ms, so on the fresh link after each switch-master the first PING left just as that window closed.
     * The new, healthy primary then looked down for a moment. Within about a second of a failover, 4 in 30
     * failovers went straight back to the node a test had just restarted.
     */
    public static final int DOWN_AFTER_MILLIS = 2000;

    private static final int SENTINELS = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(30);

    private final List<RedisServer> dataNodes = new ArrayList<>();
    private final List<RedisServer> sentinels = new ArrayList<>();
    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private boolean closed;

    private RedisSentinelSetup() {
    }

    /** Starts the five processes and waits until every Sentinel knows the primary, the replica and its peers. */
    public static RedisSentinelSetup start() {
        RedisSentinelSetup setup = new RedisSentinelSetup();
        try {
            setup.boot();
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
        return setup;
    }

    private synchronized void boot() {
        RedisServer primary = RedisServer.start();
        dataNodes.add(primary);
        RedisServer replica = RedisServer.builder().replicaOf(primary).start();
        dataNodes.add(replica);
        awaitReplicaSynced(replica, primary);
        List<String> config = List.of(
                "sentinel resolve-hostnames no",
                "sentinel announce-ip " + primary.host(),
                "sentinel monitor " + MASTER_NAME + " " + primary.host() + " " + primary.port() + " 2",
                "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
                "sentinel failover-timeout " + MASTER_NAME + " 2000",
                "sentinel parallel-syncs " + MASTER_NAME + " 1");
        for (int i = 0; i < SENTINELS; i++) {
            sentinels.add(RedisServer.builder().sentinel(config).start());
        }
        // peers are found through hello messages every 2 s; failover by quorum needs them
        Await.untilTrue(READY_TIMEOUT, "Sentinels to see " + primary + ", " + replica + " and each other",
                () -> sentinels.stream().allMatch(sentinel -> {
                    Map<String, String> master = map(sentinel.call("SENTINEL", "MASTER", MASTER_NAME));
                    return "master".equals(master.get("flags"))
                            && String.valueOf(SENTINELS - 1).equals(master.get("num-other-sentinels"))
                            && healthyReplica(sentinel, replica);
                }), this::sentinelViews);
    }

    /** The current primary, as the Sentinels report it (it changes with each failover). */
    public synchronized RedisServer primary() {
        return byPort(primaryPort(firstRunningSentinel()));
    }

    /** The current replica: the data node that is not {@link #primary()} (possibly a killed one). */
    public synchronized RedisServer replica() {
        RedisServer primary = primary();
        return dataNodes.stream().filter(node -> node != primary).findFirst().orElseThrow();
    }

    /** The three Sentinel processes. */
    public synchronized List<RedisServer> sentinels() {
        return List.copyOf(sentinels);
    }

    /** The Sentinel master name, {@value #MASTER_NAME}. */
    public String masterName() {
        return MASTER_NAME;
    }

    /**
     * A new, started factory that finds the primary through the Sentinels (5 s command timeout). The caller
     * destroys it; {@link #close()} does too.
     */
    public synchronized LettuceConnectionFactory newConnectionFactory() {
        Set<String> addresses = new LinkedHashSet<>();
        sentinels.forEach(sentinel -> addresses.add(sentinel.host() + ":" + sentinel.port()));
        LettuceConnectionFactory factory = LettuceSupport.startedFactory(
                new RedisSentinelConfiguration(MASTER_NAME, addresses),
                LettuceSupport.clientConfiguration(LettuceSupport.DEFAULT_TIMEOUT).build());
        factories.add(factory);
        return factory;
    }

    /**
     * {@code SENTINEL FAILOVER}, then waits (up to 30 s) until all Sentinels report the new primary and it
     * answers {@code ROLE master}. If the old primary is running, it also turns it into a replica of the new one and drops its
     * client connections, as Sentinel itself would only after ~10-20 s: clients reconnect through Sentinel
     * to the new primary, and a later failover finds a replica.
     */
    public synchronized void failover() {
        RedisServer old = primary();
        RedisServer sentinel = firstRunningSentinel();
        // right after a previous failover Sentinel may not yet trust the new replica: NOGOODSLAVE, retry
        Await.until(Duration.ofSeconds(15), "Sentinel to accept SENTINEL FAILOVER",
                () -> sentinel.call("SENTINEL", "FAILOVER", MASTER_NAME));
        RedisServer promoted = awaitPromotion(old);
        if (old.isRunning() && !old.isPaused()) {
            old.call("REPLICAOF", promoted.host(), Integer.toString(promoted.port()));
            old.call("CLIENT", "KILL", "TYPE", "normal");
            awaitReplicaSynced(old, promoted);
        }
    }

    /**
     * SIGKILLs the current primary and waits (up to 30 s) until the Sentinels have promoted the replica and
     * it answers {@code ROLE master}. Afterwards {@link #replica()} is the dead old primary; bring it back
     * with {@link #restartAsReplica(RedisServer)}.
     */
    public synchronized void killPrimaryAndAwaitFailover() {
        RedisServer old = primary();
        old.kill();
        awaitPromotion(old);
    }

    /**
     * Restarts a data node (if it is not running) with {@code --replicaof} the current primary, or points a
     * running one at it. Then waits until it has synced and every Sentinel sees it as a healthy replica, so that
     * the next failover can promote it.
     */
    public synchronized void restartAsReplica(RedisServer node) {
        if (!dataNodes.contains(node)) {
            throw new IllegalArgumentException(node + " is not a data node of this setup");
        }
        RedisServer primary = primary();
        if (node == primary) {
            throw new IllegalArgumentException(node + " is the current primary");
        }
        if (node.isRunning()) {
            node.call("REPLICAOF", primary.host(), Integer.toString(primary.port()));
        } else {
            node.restartAsReplicaOf(primary);
        }
        awaitReplicaSynced(node, primary);
        Await.untilTrue(FAILOVER_TIMEOUT, "Sentinels to see " + node + " as a healthy replica",
                () -> sentinels.stream().filter(RedisServer::isRunning).allMatch(s -> healthyReplica(s, node)),
                this::sentinelViews);
    }

    /** Destroys the factories made here and stops all five processes. Idempotent. */
    @Override
    public void close() {
        List<LettuceConnectionFactory> toDestroy;
        List<RedisServer> toStop = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toDestroy = new ArrayList<>(factories);
            factories.clear();
            toStop.addAll(sentinels); // Sentinels first, so that they do not react to the primary going away
            toStop.addAll(dataNodes);
        }
        toDestroy.forEach(LettuceSupport::destroyQuietly);
        toStop.forEach(RedisServer::close);
    }

    @Override
    public synchronized String toString() {
        return "RedisSentinelSetup[data " + dataNodes + ", sentinels " + sentinels + "]";
    }

    // ---------------------------------------------------------------------------------------------

    private RedisServer awaitPromotion(RedisServer old) {
        return Await.until(FAILOVER_TIMEOUT, "Sentinels to agree on a new primary instead of " + old, () -> {
            Set<Integer> reported = new LinkedHashSet<>();
            for (RedisServer sentinel : sentinels) {
                if (sentinel.isRunning()) {
                    reported.add(primaryPort(sentinel));
                }
            }
            if (reported.size() != 1 || reported.contains(old.port())) {
                return null;
            }
            RedisServer promoted = byPort(reported.iterator().next());
            return promoted.isRunning() && "master".equals(role(promoted).get(0)) ? promoted : null;
        });
    }

    // What each Sentinel believes, for timeout messages.
    private String sentinelViews() {
        StringBuilder views = new StringBuilder();
        for (RedisServer sentinel : sentinels) {
            views.append("\n  sentinel ").append(sentinel.port()).append(": ");
            try {
                Map<String, String> master = map(sentinel.call("SENTINEL", "MASTER", MASTER_NAME));
                views.append("primary ").append(master.get("port")).append(' ').append(master.get("flags"))
                        .append(", other sentinels ").append(master.get("num-other-sentinels"))
                        .append(", replicas");
                for (Object entry : (List<?>) Objects.requireNonNull(sentinel.call("SENTINEL", "REPLICAS", MASTER_NAME))) {
                    Map<String, String> fields = map(entry);
                    views.append(' ').append(fields.get("port")).append(' ').append(fields.get("flags"))
                            .append(" link ").append(fields.get("master-link-status"));
                }
            } catch (RuntimeException e) {
                views.append(e);
            }
        }
        // Sentinel logs every role switch and failover step: the why behind an unexpected view
        for (RedisServer sentinel : sentinels) {
            views.append("\n  sentinel ").append(sentinel.port()).append(" log:\n").append(sentinel.logTail(25));
        }
        return views.toString();
    }

    private static void awaitReplicaSynced(RedisServer replica, RedisServer primary) {
        Await.untilTrue(READY_TIMEOUT, replica + " to sync from " + primary, () -> {
            List<?> role = role(replica); // slave, host, port, state, offset
            return "slave".equals(role.get(0))
                    && String.valueOf(primary.port()).equals(String.valueOf(role.get(2)))
                    && "connected".equals(role.get(3));
        });
    }

    private static boolean healthyReplica(RedisServer sentinel, RedisServer replica) {
        Object replicas = sentinel.call("SENTINEL", "REPLICAS", MASTER_NAME);
        for (Object entry : (List<?>) Objects.requireNonNull(replicas)) {
            Map<String, String> fields = map(entry);
            if (String.valueOf(replica.port()).equals(fields.get("port"))) {
                return "slave".equals(fields.get("flags")); // no s_down, no disconnected
            }
        }
        return false;
    }

    private static int primaryPort(RedisServer sentinel) {
        List<?> address = (List<?>) sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        return Integer.parseInt(String.valueOf(Objects.requireNonNull(address).get(1)));
    }

    private static List<?> role(RedisServer server) {
        return (List<?>) Objects.requireNonNull(server.call("ROLE"));
    }

    private RedisServer firstRunningSentinel() {
        return sentinels.stream().filter(RedisServer::isRunning).findFirst()
                .orElseThrow(() -> new IllegalStateException("no Sentinel is running"));
    }

    private RedisServer byPort(int port) {
        return dataNodes.stream().filter(node -> node.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("Sentinel reports a primary on port " + port
                        + " that is not part of " + this));
    }

    private static Map<String, String> map(@Nullable Object flatPairs) {
        List<?> list = (List<?>) Objects.requireNonNull(flatPairs);
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i + 1 < list.size(); i += 2) {
            map.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
        }
        return map;
    }
}
