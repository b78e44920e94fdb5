package io.github.relock.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.test.RedisSentinelSetup;
import io.github.relock.test.RedisServer;

/**
 * The Redis processes of a run: a standalone server behind a {@link ChaosProxy} (clients only ever reach
 * it through the proxy), and, for the Sentinel phases, a primary, a replica and three Sentinels, started in
 * the background while the standalone phase runs.
 */
final class Topology implements AutoCloseable {

    private final RedisServer redis;
    private final ChaosProxy proxy;
    private final CompletableFuture<RedisSentinelSetup> sentinel;
    private volatile boolean onSentinel;

    Topology(boolean withSentinel) {
        redis = RedisServer.start();
        try {
            proxy = new ChaosProxy(redis.port());
        }
        catch (IOException ex) {
            redis.close();
            throw new UncheckedIOException(ex);
        }
        sentinel = withSentinel ? CompletableFuture.supplyAsync(RedisSentinelSetup::start) : null;
    }

    RedisServer redis() {
        return redis;
    }

    ChaosProxy proxy() {
        return proxy;
    }

    RedisSentinelSetup sentinel() {
        return sentinel.join();
    }

    /** What a client JVM connects to in a phase (see {@link ClientSlot#connect}); the phase becomes current. */
    String enter(FaultSchedule.Phase phase) {
        onSentinel = phase.sentinel();
        if (!phase.sentinel()) {
            return "standalone:" + proxy.port();
        }
        RedisSentinelSetup setup = sentinel();
        return "sentinel:" + setup.masterName() + ":" + setup.sentinels().stream()
                .map(s -> s.host() + ":" + s.port()).collect(Collectors.joining(","));
    }

    /** The server that holds the locks right now, for the parent's own look into Redis. */
    RedisServer current() {
        return onSentinel ? sentinel().primary() : redis;
    }

    /** Every data node, for the check that no subscription is left at the end. */
    List<RedisServer> dataNodes() {
        List<RedisServer> nodes = new ArrayList<>(List.of(redis));
        if (sentinel != null && sentinel.isDone() && !sentinel.isCompletedExceptionally()) {
            nodes.add(sentinel().primary());
            nodes.add(sentinel().replica());
        }
        return nodes;
    }

    @Override
    public void close() {
        try {
            proxy.close();
            redis.close();
        }
        finally {
            if (sentinel != null) {
                sentinel.thenAccept(RedisSentinelSetup::close); // at once if started, else when it has
            }
        }
    }
}
