package io.github.relock.benchmarks.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.benchmarks.libraries.RedisTarget;
import io.github.relock.benchmarks.redis.NodeCounters.Snapshot;
import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;

/** S4's counters on a real 3-primary cluster: a classic PUBLISH reaches every other node over the bus, SPUBLISH none. */
class NodeCountersTest {

    private static final int MESSAGES = 200;

    @Test
    @Timeout(60)
    void classicPublishCrossesTheBusToEveryOtherPrimaryShardedPublishDoesNot() {
        try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
            List<RedisServer> primaries = cluster.nodes();
            assumeTrue(Integer.parseInt(primaries.get(0).version().split("\\.")[0]) >= 7, "SPUBLISH needs Redis 7");
            List<NodeCounters> nodes = new ArrayList<>();
            try {
                for (RedisServer node : primaries) {
                    nodes.add(new NodeCounters(new RedisTarget(node.host(), node.port()), node.pid(), true));
                }
                RedisServer owner = cluster.nodeForKey("{s4}:released");
                Snapshot before = NodeCounters.readAll(nodes);
                owner.command("EVAL", "for i = 1, " + MESSAGES + " do redis.call('publish', KEYS[1], 'x') end", "1",
                        "{s4}:released");
                long otherPrimaries = primaries.size() - 1L;
                // the bus delivers asynchronously: read once every other primary has counted every message
                Snapshot classic = settled(nodes, before, MESSAGES * otherPrimaries);
                assertEquals(MESSAGES, classic.commands().calls().get("publish"));
                assertEquals(MESSAGES * otherPrimaries, classic.publishReceived());
                // each bus message carries a ~2 KB header (the sender's slot bitmap) to each other primary
                assertTrue(classic.nonClientBytes() > MESSAGES * (primaries.size() - 1L) * 2000,
                        "bus bytes " + classic.nonClientBytes());

                before = NodeCounters.readAll(nodes);
                owner.command("EVAL", "for i = 1, " + MESSAGES + " do redis.call('spublish', KEYS[1], 'x') end", "1",
                        "{s4}:released");
                // one classic marker after them: links are ordered, so once it arrived anything sent before it has too
                owner.command("PUBLISH", "{s4}:released", "marker");
                Snapshot sharded = settled(nodes, before, otherPrimaries);
                assertEquals(MESSAGES, sharded.commands().calls().get("spublish"));
                assertEquals(otherPrimaries, sharded.publishReceived(), "only the marker crosses the bus");
                assertEquals(0, sharded.shardPublishReceived());
                assertTrue(sharded.nonClientBytes() < MESSAGES * 1000L, "bus bytes " + sharded.nonClientBytes());
            }
            finally {
                nodes.forEach(NodeCounters::close);
            }
        }
    }

    private static Snapshot settled(List<NodeCounters> nodes, Snapshot before, long publishReceived) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Snapshot delta = NodeCounters.readAll(nodes).minus(before);
        while (delta.publishReceived() < publishReceived && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            delta = NodeCounters.readAll(nodes).minus(before);
        }
        return delta;
    }
}
