package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.ToLongFunction;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;
import io.lettuce.core.cluster.SlotHash;

/**
 * Releases on a Redis 7 cluster (3 primaries, 1 replica each) are announced with SPUBLISH and heard through
 * SSUBSCRIBE: the waiter on another client is woken at once, no other node carries the message, and the waiter
 * still hears of a release after its lock's slot moved to another primary or its primary failed over. The holder
 * keeps a watchdog lock (30 s lease), so a waiter that missed the release would sleep for most of that.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("jdk-independent")
class ShardedPubSubClusterTest {

    /** Far below the 30 s lease a waiter that missed the release sleeps on. */
    private static final long PROMPT_MILLIS = 5_000;

    static RedisClusterSetup cluster;
    static LettuceConnectionFactory holderFactory;
    static LettuceConnectionFactory waiterFactory;
    static RedisLockClient holder;
    static RedisLockClient waiter;
    static ExecutorService pool;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterSetup.start(3, 1);
        String version = cluster.nodes().get(0).version();
        if (Integer.parseInt(version.split("\\.")[0]) < 7) {
            cluster.close();
            assumeTrue(false, "sharded pub/sub needs Redis 7, the cluster runs " + version);
        }
        holderFactory = cluster.newConnectionFactory();
        waiterFactory = cluster.newConnectionFactory();
        holder = RedisLockClient.builder(holderFactory).watchdogTimeout(Duration.ofSeconds(30)).build();
        waiter = RedisLockClient.builder(waiterFactory).watchdogTimeout(Duration.ofSeconds(30)).build();
        pool = Executors.newCachedThreadPool();
    }

    @AfterAll
    static void stopCluster() {
        if (pool != null) {
            pool.shutdownNow();
            holder.close();
            waiter.close();
        }
        cluster.close();
    }

    @Test
    @Order(1)
    void aReleaseWakesAWaiterOnAnotherClientAndNoOtherNodeHearsOfIt() throws Exception {
        String name = "sharded-wake";
        Waited waited = holdWithASubscribedWaiter(name);
        RedisServer owner = waited.owner();

        long busBefore = busMessages();
        long spublishBefore = calls("spublish");
        long publishBefore = calls("publish");
        releaseAndExpectTheWaiterPromptly(waited);

        // the two releases, and the waiter taking the turn the first one kept for it (see turns.lua)
        assertThat(calls("spublish") - spublishBefore).as("announcements made with SPUBLISH").isEqualTo(3);
        assertThat(calls("publish") - publishBefore).as("no classic PUBLISH").isZero();
        // the announcements reach the owner's replica (a shard message), never another primary
        assertThat(busMessages() - busBefore).as("classic pub/sub messages over the cluster bus").isZero();
        Awaitility.await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                assertThat(owner.command("PUBSUB", "SHARDNUMSUB", waiter.redisKeys(name).releaseChannel()))
                        .as("the waiter's channel is given up once nobody waited on it a moment").endsWith("\n0"));
    }

    @Test
    @Order(2)
    void aWaiterHearsOfTheReleaseAfterItsLocksSlotMovedToAnotherPrimary() throws Exception {
        String name = "sharded-migrate";
        Waited waited = holdWithASubscribedWaiter(name);

        RedisServer to = moveTheSlotToAnotherPrimary(waited);
        await("the waiter to subscribe on the slot's new owner", () -> shardSubscribers(to, name) == 1);
        releaseAndExpectTheWaiterPromptly(waited);
    }

    /** Released while the waiter's subscription may still be on the old owner: it is woken to look again. */
    @Test
    @Order(3)
    void aReleaseRightAfterTheSlotMovedStillReachesTheWaiter() throws Exception {
        Waited waited = holdWithASubscribedWaiter("sharded-migrate-release");

        moveTheSlotToAnotherPrimary(waited);
        releaseAndExpectTheWaiterPromptly(waited);
    }

    @Test
    @Order(4)
    void aWaiterHearsOfTheReleaseAfterItsPrimaryFailedOver() throws Exception {
        String name = "sharded-failover";
        Waited waited = holdWithASubscribedWaiter(name);
        ReentrantDistributedLock held = waited.held();
        Future<Long> acquired = waited.acquired();
        RedisServer owner = waited.owner();
        Thread.sleep(500); // the replica has the lock's keys

        owner.kill();
        int slot = SlotHash.getSlot(held.getKey());
        await("a replica to take over slot " + slot, () -> {
            try {
                return cluster.nodeForSlot(slot) != owner;
            }
            catch (RuntimeException ex) {
                return false;
            }
        });
        RedisServer promoted = cluster.nodeForSlot(slot);
        await("the waiter to subscribe on the promoted replica", () -> shardSubscribers(promoted, name) == 1);
        long unlockAt = System.nanoTime();
        held.unlock();
        long releasedAt = System.nanoTime();
        long acquiredToken = acquired.get(PROMPT_MILLIS * 2, TimeUnit.MILLISECONDS);
        System.err.printf("failover: unlock took %d ms, the waiter had the lock %d ms after it%n",
                TimeUnit.NANOSECONDS.toMillis(releasedAt - unlockAt),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt));
        assertThat(acquiredToken).isGreaterThan(0);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt)).isLessThan(PROMPT_MILLIS);
    }

    /** A lock the holder holds, the waiter's future for it, and the primary where the waiter subscribed. */
    private record Waited(ReentrantDistributedLock held, Future<Long> acquired, RedisServer owner) {
    }

    /** The holder takes lock {@code name}, then a waiter waits for it until its sharded subscription is in place. */
    private Waited holdWithASubscribedWaiter(String name) {
        ReentrantDistributedLock held = holder.getLock(name);
        held.lock();
        Future<Long> acquired = waitFor(name);
        return new Waited(held, acquired, awaitShardSubscriber(name));
    }

    /** Migrates the lock's slot from the primary where the waiter subscribed to another one, and returns it. */
    private static RedisServer moveTheSlotToAnotherPrimary(Waited waited) {
        RedisServer to = primaries().stream().filter(primary -> primary != waited.owner()).findFirst().orElseThrow();
        cluster.migrateSlot(SlotHash.getSlot(waited.held().getKey()), to);
        return to;
    }

    /** Releases the held lock; the waiter must have had the lock within {@value #PROMPT_MILLIS} ms. */
    private static void releaseAndExpectTheWaiterPromptly(Waited waited) throws Exception {
        long releasedAt = System.nanoTime();
        waited.held().unlock();
        assertThat(waited.acquired().get(PROMPT_MILLIS, TimeUnit.MILLISECONDS)).isGreaterThan(0);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt)).isLessThan(PROMPT_MILLIS);
    }

    /** A waiter on the other client that takes the lock (within 60 s), gives it back and returns its token. */
    private Future<Long> waitFor(String name) {
        return pool.submit(() -> {
            ReentrantDistributedLock lock = waiter.getLock(name);
            assertThat(lock.tryLock(60, TimeUnit.SECONDS)).isTrue();
            long token = lock.fencingToken();
            lock.unlock();
            return token;
        });
    }

    /** The primary where the waiter's sharded subscription landed, once it is there. */
    private RedisServer awaitShardSubscriber(String name) {
        RedisServer owner = cluster.nodeForKey(waiter.redisKeys(name).lock());
        await("the waiter to SSUBSCRIBE on " + owner, () -> shardSubscribers(owner, name) == 1);
        return owner;
    }

    private static long shardSubscribers(RedisServer node, String name) {
        String reply = node.command("PUBSUB", "SHARDNUMSUB", waiter.redisKeys(name).releaseChannel());
        return Long.parseLong(reply.substring(reply.lastIndexOf('\n') + 1));
    }

    private static List<RedisServer> primaries() {
        return cluster.nodes().stream().filter(RedisServer::isRunning)
                .filter(node -> node.command("ROLE").startsWith("master")).toList();
    }

    /** Classic pub/sub messages the running nodes received over the cluster bus. */
    private static long busMessages() {
        return sumOverRunningNodes(
                node -> infoField(node.command("CLUSTER", "INFO"), "cluster_stats_messages_publish_received"));
    }

    /** Calls of {@code command} the running nodes made, scripts' included. */
    private static long calls(String command) {
        return sumOverRunningNodes(node -> {
            String stats = node.command("INFO", "commandstats");
            int at = stats.indexOf("cmdstat_" + command + ":calls=");
            if (at < 0) {
                return 0;
            }
            int from = at + ("cmdstat_" + command + ":calls=").length();
            return Long.parseLong(stats.substring(from, stats.indexOf(',', from)));
        });
    }

    private static long sumOverRunningNodes(ToLongFunction<RedisServer> perNode) {
        return cluster.nodes().stream().filter(RedisServer::isRunning).mapToLong(perNode).sum();
    }

    private static long infoField(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).strip());
            }
        }
        return 0;
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(50);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }
}
