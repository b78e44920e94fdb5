package io.github.relock.benchmarks.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;

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
                Snapshot classic = NodeCounters.readAll(nodes).minus(before);
                assertEquals(MESSAGES, classic.commands().calls().get("publish"));
                assertEquals(MESSAGES * (primaries.size() - 1L), classic.publishReceived());
                // each bus message carries a ~2 KB header (the sender's slot bitmap) to each other primary
                assertTrue(classic.nonClientBytes() > MESSAGES * (primaries.size() - 1L) * 2000,
                        "bus bytes " + classic.nonClientBytes());

                before = NodeCounters.readAll(nodes);
                owner.command("EVAL", "for i = 1, " + MESSAGES + " do redis.call('spublish', KEYS[1], 'x') end", "1",
                        "{s4}:released");
                Snapshot sharded = NodeCounters.readAll(nodes).minus(before);
                assertEquals(MESSAGES, sharded.commands().calls().get("spublish"));
                assertEquals(0, sharded.publishReceived() + sharded.shardPublishReceived());
                assertTrue(sharded.nonClientBytes() < MESSAGES * 1000L, "bus bytes " + sharded.nonClientBytes());
            }
            finally {
                nodes.forEach(NodeCounters::close);
            }
        }
    }
}
