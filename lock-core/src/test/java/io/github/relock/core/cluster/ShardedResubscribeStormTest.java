package io.github.relock.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisClusterExtension;
import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;

/**
 * ResubscribeStormTest's storm, on a Redis Cluster with sharded pub/sub: the node that owns the locks' slot takes no new
 * connection (maxclients reached; commands on open connections still work), so no SSUBSCRIBE to it can be
 * sent. Every waiter looks again every 100 ms; one client should try to connect a few times a second, however
 * many waiters it has, and no wait may overrun its wait time by much.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ShardedResubscribeStormTest {

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension(3, 0);

    @Test
    void manyWaitersDoNotEachOpenConnectionsToANodeThatTakesNone() throws Exception {
        RedisClusterSetup setup = cluster.setup();
        assumeTrue(Integer.parseInt(setup.nodes().get(0).version().split("\\.")[0]) >= 7, "sharded pub/sub: Redis 7");
        try (RedisLockClient holder = RedisLockClient.builder(cluster.newConnectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(cluster.newConnectionFactory()).build()) {
            List<String> names = namesOn(waiter, setup, setup.nodes().get(0), 4);
            RedisServer full = setup.nodes().get(0);
            String warm = namesOn(waiter, setup, setup.nodes().get(1), 1).get(0);
            holdWhileTheWaiterConnects(holder, waiter, warm, names);
            long connected = Long.parseLong(info(full, "connected_clients"));
            full.commands().configSet("maxclients", Long.toString(connected));
            long rejectedBefore = Long.parseLong(info(full, "rejected_connections"));
            List<CompletableFuture<Long>> waits = new ArrayList<>();
            try {
                for (int i = 0; i < 16; i++) {
                    ReentrantDistributedLock lock = waiter.getLock(names.get(i % names.size()));
                    if (i % 2 == 0) {
                        waits.add(CompletableFuture.supplyAsync(() -> timed(lock), runnable -> new Thread(runnable).start()));
                    }
                    else {
                        LockOwner owner = waiter.newOwner();
                        long start = System.nanoTime();
                        waits.add(lock.tryLockAsync(Duration.ofSeconds(2), null, owner).thenApply(acquired -> {
                            assertThat(acquired).isFalse();
                            return (System.nanoTime() - start) / 1_000_000;
                        }));
                    }
                }
                long longest = 0;
                for (CompletableFuture<Long> wait : waits) {
                    longest = Math.max(longest, wait.get(40, TimeUnit.SECONDS));
                }
                long rejected = Long.parseLong(info(full, "rejected_connections")) - rejectedBefore;
                System.out.printf("16 waiters, 2 s waits, the locks' node at maxclients: %d connections tried and "
                        + "rejected; longest wait %d ms%n", rejected, longest);
                // 2 s at one try per 100 ms for the client is about 20; 16 waiters each trying make hundreds
                assertThat(rejected).as("connections tried to the full node in about 2 s").isLessThan(80);
                assertThat(longest).as("a 2 s wait").isLessThan(4_000);
            }
            finally {
                full.commands().configSet("maxclients", "10000");
            }
            // once the node takes connections again, a waiter subscribes and hears the release
            CompletableFuture<Long> woken = CompletableFuture.supplyAsync(() -> {
                long start = System.nanoTime();
                try {
                    assertThat(waiter.getLock(names.get(0)).tryLock(10, TimeUnit.SECONDS)).isTrue();
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
                waiter.getLock(names.get(0)).unlock();
                return (System.nanoTime() - start) / 1_000_000;
            }, runnable -> new Thread(runnable).start());
            Thread.sleep(500);
            holder.getLock(names.get(0)).unlock();
            long took = woken.get(20, TimeUnit.SECONDS);
            System.out.printf("after the node took connections again: a waiter got the lock released at 500 ms "
                    + "after %d ms%n", took);
            assertThat(took).as("woken by the release, not the holder's 30 s lease").isLessThan(2_500);
        }
    }

    /** close() while waiters retry subscribing to a node that takes no connection: they all end at once. */
    @Test
    void closeWhileWaitersRetryEndsThemAtOnceAndLeavesNoThread() throws Exception {
        RedisClusterSetup setup = cluster.setup();
        assumeTrue(Integer.parseInt(setup.nodes().get(0).version().split("\\.")[0]) >= 7, "sharded pub/sub: Redis 7");
        RedisServer full = setup.nodes().get(0);
        try (RedisLockClient holder = RedisLockClient.builder(cluster.newConnectionFactory()).build()) {
            RedisLockClient waiter = RedisLockClient.builder(cluster.newConnectionFactory()).build();
            List<String> names = namesOn(waiter, setup, full, 2);
            String warm = namesOn(waiter, setup, setup.nodes().get(1), 1).get(0);
            holdWhileTheWaiterConnects(holder, waiter, warm, names);
            full.commands().configSet("maxclients", info(full, "connected_clients"));
            List<CompletableFuture<Object>> waits = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    ReentrantDistributedLock lock = waiter.getLock(names.get(i % names.size()));
                    if (i % 2 == 0) {
                        waits.add(CompletableFuture.supplyAsync(() -> {
                            try {
                                return lock.tryLock(10, TimeUnit.SECONDS);
                            }
                            catch (InterruptedException ex) {
                                throw new IllegalStateException(ex);
                            }
                        }, runnable -> new Thread(runnable).start()));
                    }
                    else {
                        waits.add(lock.tryLockAsync(Duration.ofSeconds(10), null, waiter.newOwner()).thenApply(x -> x));
                    }
                }
                Thread.sleep(500);
                long closing = System.nanoTime();
                waiter.close();
                for (CompletableFuture<Object> wait : waits) {
                    wait.handle((result, failure) -> failure != null ? failure : result).get(5, TimeUnit.SECONDS);
                }
                long endedMillis = (System.nanoTime() - closing) / 1_000_000;
                Thread.sleep(200);
                List<String> left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                        .map(Thread::getName).filter(name -> name.contains(waiter.getClientId())).toList();
                System.out.printf("close() with 8 waiters retrying a full node: all ended %d ms after; threads left %s%n",
                        endedMillis, left);
                assertThat(endedMillis).isLessThan(1_500);
                assertThat(left).isEmpty();
            }
            finally {
                full.commands().configSet("maxclients", "10000");
            }
        }
    }

    /**
     * The holder takes {@code warm} (on another node) and {@code names}; the waiter, trying each, opens its pub/sub
     * connection and its data connections to every node before the full node stops taking new ones.
     */
    private static void holdWhileTheWaiterConnects(RedisLockClient holder, RedisLockClient waiter, String warm,
            List<String> names) throws InterruptedException {
        holder.getLock(warm).lock();
        assertThat(waiter.getLock(warm).tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        for (String name : names) {
            holder.getLock(name).lock();
            assertThat(waiter.getLock(name).tryLock()).isFalse();
        }
    }

    private static long timed(ReentrantDistributedLock lock) {
        long start = System.nanoTime();
        try {
            assertThat(lock.tryLock(2, TimeUnit.SECONDS)).isFalse();
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** {@code count} lock names whose slot {@code node} owns. */
    static List<String> namesOn(RedisLockClient client, RedisClusterSetup setup, RedisServer node, int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; names.size() < count; i++) {
            String name = "bk9:" + node.port() + ":" + i;
            if (setup.nodeForKey(client.redisKeys(name).lock()).port() == node.port()) {
                names.add(name);
            }
        }
        return names;
    }

    static String info(RedisServer node, String field) {
        for (String line : node.commands().info().split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        throw new IllegalStateException(field + " not in INFO of " + node);
    }
}
