package io.github.relock.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;
import io.lettuce.core.cluster.SlotHash;

/**
 * Turns on a Redis 7 cluster while the lock's slot moves back and forth: waiters of three clients in line,
 * short waits that leave (SUNSUBSCRIBE) while the resubscriber follows the slot. Never two inside, no wait that
 * lasts towards the 30 s watchdog lease, and afterwards no sharded subscription and no key of the lock left.
 */
@Timeout(120)
@Tag("jdk-independent")
class ClusterTurnsMigrationTest {

    static RedisClusterSetup cluster;
    static final List<RedisLockClient> clients = new ArrayList<>();

    @BeforeAll
    static void start() {
        cluster = RedisClusterSetup.start(3, 0);
        String version = cluster.nodes().get(0).version();
        if (Integer.parseInt(version.split("\\.")[0]) < 7) {
            cluster.close();
            assumeTrue(false, "sharded pub/sub needs Redis 7");
        }
        for (int i = 0; i < 3; i++) {
            clients.add(RedisLockClient.builder(cluster.newConnectionFactory()).clientId("c" + i)
                    .watchdogTimeout(Duration.ofSeconds(30)).build());
        }
    }

    @AfterAll
    static void stop() {
        clients.forEach(RedisLockClient::close);
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void slotMovesWhileClientsTakeTurns() throws Exception {
        String name = "bk4:migrating";
        int slot = SlotHash.getSlot(clients.get(0).redisKeys(name).lock());
        AtomicInteger inside = new AtomicInteger();
        AtomicLong worst = new AtomicLong();
        AtomicInteger acquired = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(12);
        List<Thread> workers = new ArrayList<>();
        for (RedisLockClient client : clients) {
            for (int t = 0; t < 3; t++) {
                int kind = t;
                Thread worker = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    ReentrantDistributedLock lock = client.getLock(name);
                    while (System.nanoTime() < end) {
                        try {
                            long start = System.nanoTime();
                            boolean got = kind == 2 ? lock.tryLock(random.nextInt(1, 30), TimeUnit.MILLISECONDS)
                                    : lock.tryLock(25, TimeUnit.SECONDS);
                            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                            worst.accumulateAndGet(took, Math::max);
                            if (!got) {
                                if (kind != 2) {
                                    problems.add("waited " + took + " ms in vain");
                                }
                                continue;
                            }
                            if (inside.incrementAndGet() != 1) {
                                problems.add("two inside");
                            }
                            acquired.incrementAndGet();
                            Thread.sleep(random.nextInt(1, 10));
                            inside.decrementAndGet();
                            lock.unlock();
                        }
                        catch (Exception ex) {
                            // a script that ran into the migration (TRYAGAIN, ASK): counted, not a defect by itself
                            errors.computeIfAbsent(ex.getClass().getSimpleName() + ": " + String.valueOf(ex.getMessage())
                                    .lines().findFirst().orElse(""), k -> new AtomicInteger()).incrementAndGet();
                            try {
                                if (lock.isHeldByCurrentThread()) {
                                    inside.set(0);
                                    lock.unlock();
                                }
                            }
                            catch (Exception ignored) {
                                // best effort
                            }
                        }
                    }
                });
                worker.start();
                workers.add(worker);
            }
        }
        int moves = 0;
        while (System.nanoTime() < end - TimeUnit.SECONDS.toNanos(2)) {
            Thread.sleep(400);
            RedisServer from = cluster.nodeForSlot(slot);
            RedisServer to = primaries().stream().filter(n -> n != from).toList()
                    .get(ThreadLocalRandom.current().nextInt(2));
            cluster.migrateSlot(slot, to);
            moves++;
        }
        for (Thread worker : workers) {
            worker.join(40_000);
            assertThat(worker.isAlive()).as("a worker stalled").isFalse();
        }
        System.out.println("cluster: " + acquired.get() + " holds, " + moves + " moves, worst wait " + worst.get()
                + " ms, errors " + errors + ", problems " + problems);
        assertThat(problems).isEmpty();
        assertThat(worst.get()).as("worst wait").isLessThan(10_000);
        Thread.sleep(500);
        String channel = clients.get(0).redisKeys(name).releaseChannel();
        for (RedisServer node : cluster.nodes()) {
            String reply = node.command("PUBSUB", "SHARDNUMSUB", channel);
            assertThat(reply).as("sharded subscribers on %s", node).endsWith("\n0");
        }
        RedisServer owner = cluster.nodeForSlot(slot);
        String key = clients.get(0).redisKeys(name).lock();
        assertThat(owner.command("EXISTS", key, key + ":turn")).isEqualTo("0");

        // closed clients leave no thread behind (the scheduler, the event thread)
        List<String> ids = clients.stream().map(RedisLockClient::getClientId).toList();
        clients.forEach(RedisLockClient::close);
        Thread.sleep(1_000);
        List<String> alive = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> ids.stream().anyMatch(n::contains)).toList();
        assertThat(alive).as("threads of closed clients").isEmpty();
    }

    private static List<RedisServer> primaries() {
        return cluster.nodes().stream().filter(RedisServer::isRunning)
                .filter(node -> node.command("ROLE").startsWith("master")).toList();
    }
}
