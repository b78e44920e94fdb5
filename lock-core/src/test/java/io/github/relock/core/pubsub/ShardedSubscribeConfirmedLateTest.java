package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;
import io.lettuce.core.cluster.SlotHash;

/**
 * Sharded pub/sub (Redis Cluster): SSUBSCRIBEs a node gets only after they timed out (the client's connection to
 * it frozen) are confirmed once it thaws, when no waiter of this client waits on those channels any more. The
 * client undoes each (a SUNSUBSCRIBE follows every SSUBSCRIBE that went unanswered), so none stays subscribed on
 * the node, where Lettuce would subscribe it again after each reconnect.
 *
 * <p>The node announces a {@link ChaosProxy}'s port ({@code cluster-announce-port}) before the waiter's client
 * starts, so that client reaches it through the proxy, which freezes its sharded pub/sub connection alone.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ShardedSubscribeConfirmedLateTest {

    @Test
    void anSsubscribeConfirmedAfterItTimedOutIsUndone() throws Exception {
        try (RedisClusterSetup cluster = RedisClusterSetup.start(3, 0)) {
            RedisServer node = cluster.nodeForSlot(SlotHash.getSlot("late0"));
            try (ChaosProxy proxy = new ChaosProxy(node.port())) {
                node.command("CONFIG", "SET", "cluster-announce-port", String.valueOf(proxy.port()));
                // the other nodes hear of it by gossip: the client, seeded with them, then learns the proxy's port
                String announced = "127.0.0.1:" + proxy.port() + "@";
                long gossip = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!cluster.nodes().stream().filter(other -> other != node)
                        .allMatch(other -> String.valueOf(other.command("CLUSTER", "NODES")).contains(announced))) {
                    assertThat(System.nanoTime()).as("the other nodes know the announced port").isLessThan(gossip);
                    Thread.sleep(50);
                }
                List<String> seeds = cluster.nodes().stream().filter(other -> other != node)
                        .map(other -> other.host() + ":" + other.port()).toList();
                LettuceConnectionFactory throughProxy = new LettuceConnectionFactory(
                        new RedisClusterConfiguration(seeds), LettuceClientConfiguration.builder()
                                .commandTimeout(Duration.ofSeconds(1)).shutdownQuietPeriod(Duration.ZERO)
                                .shutdownTimeout(Duration.ofSeconds(2)).build());
                throughProxy.afterPropertiesSet();
                throughProxy.start();
                try (RedisLockClient holder = RedisLockClient.builder(cluster.newConnectionFactory()).build();
                        RedisLockClient waiter = RedisLockClient.builder(throughProxy).build()) {
                    List<String> names = new ArrayList<>();
                    for (int i = 0; names.size() < 5; i++) {
                        if (cluster.nodeForSlot(SlotHash.getSlot("late" + i)) == node) {
                            names.add("late" + i);
                        }
                    }
                    LockOwner holderOwner = holder.newOwner();
                    for (String name : names) {
                        holder.getLock(name, holderOwner).lockAsync(Duration.ofSeconds(60), holderOwner)
                                .get(5, TimeUnit.SECONDS);
                    }
                    // a first wait opens the waiter's sharded connection to the node (the proxy sees its SSUBSCRIBE)
                    LockOwner first = waiter.newOwner();
                    assertThat(waiter.getLock(names.get(0), first).tryLockAsync(Duration.ofMillis(100),
                            Duration.ofSeconds(30), first).get(5, TimeUnit.SECONDS)).isFalse();
                    assertThat(proxy.connections()).as("the waiter's connections to the node pass the proxy")
                            .isGreaterThan(0);
                    Thread.sleep(1_000); // that channel goes (kept 500 ms)
                    // up to three rounds: about one round in four leaves nothing subscribed after the thaw (why was not
                    // looked into: the held-back SSUBSCRIBEs may not reach the node at all then)
                    String channels = "";
                    for (int round = 0; round < 3 && channels.isEmpty(); round++) {
                        proxy.freezePubSub(true);
                        List<CompletableFuture<Boolean>> waits = new ArrayList<>();
                        for (String name : names) {
                            LockOwner owner = waiter.newOwner();
                            waits.add(waiter.getLock(name, owner).tryLockAsync(Duration.ofMillis(300),
                                    Duration.ofSeconds(30), owner));
                        }
                        for (CompletableFuture<Boolean> wait : waits) {
                            assertThat(wait.get(10, TimeUnit.SECONDS)).isFalse();
                        }
                        Thread.sleep(1_500); // every SSUBSCRIBE timed out (1 s), and the queues went
                        assertThat(String.valueOf(node.command("PUBSUB", "SHARDCHANNELS")).trim())
                                .as("the node got no SSUBSCRIBE while the proxy held them back").isEmpty();
                        proxy.freezePubSub(false);
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                        while (!(channels = String.valueOf(node.command("PUBSUB", "SHARDCHANNELS")).trim()).isEmpty()
                                && System.nanoTime() < deadline) {
                            Thread.sleep(50);
                        }
                    }
                    assertThat(channels.replace('\n', ' '))
                            .as("sharded channels on the node 3 s after the thaw, with nobody waiting").isEmpty();
                }
                finally {
                    throughProxy.destroy();
                }
            }
        }
    }
}
