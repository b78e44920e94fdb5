package io.github.relock.core.threads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.cluster.SlotHash;

import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;
import io.github.relock.test.RedisServerExtension;

/**
 * The threads a client runs beyond Lettuce's event loops, whatever it does: at most two, its scheduler (renewal
 * rounds, their lease-end checks, the waits' timers, a cluster client's resubscriptions) and one thread for
 * lost-lock listeners; none of them outlives close(). Waiters, blocking or asynchronous, hold no thread of the
 * client's.
 */
@Timeout(60)
@Tag("redis-version-independent")
class ClientThreadsTest {

    private static final int MAX_THREADS = 2;
    private static final Duration WATCHDOG = Duration.ofMillis(600);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void renewalAndItsLeaseEndChecksRunOnTheSchedulerAndEveryThreadEndsWithTheClient() throws Exception {
        Set<String> seen = syncWaitersWatchdogHoldsAndALostLock("renewal-threads");
        assertThat(seen).allMatch(name -> name.startsWith("relock-scheduler-") || name.startsWith("relock-events-"),
                "the scheduler or the listener thread");
    }

    @Test
    void syncWaitersWatchdogHoldsAndALostLockRunAtMostTwoThreadsThatEndWithTheClient() throws Exception {
        assertThat(syncWaitersWatchdogHoldsAndALostLock("threads")).hasSizeLessThanOrEqualTo(MAX_THREADS);
    }

    /**
     * The asynchronous API's futures complete on the JVM's common pool and start no thread per call, also where
     * that pool has a single worker (two cores or fewer, as here and on CI), where {@code CompletableFuture}'s
     * own {@code *Async} methods would start one thread per completion.
     */
    @Test
    void asynchronousCallsStartNoThreadPerCall() throws Exception {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("threads:async-calls");
            LockOwner owner = client.newOwner();
            lock.lockAsync(owner).get(10, TimeUnit.SECONDS); // warm: the pool's worker, the client's threads
            lock.unlockAsync(owner).get(10, TimeUnit.SECONDS);
            long before = threads.getTotalStartedThreadCount();
            for (int i = 0; i < 200; i++) {
                lock.lockAsync(owner).get(10, TimeUnit.SECONDS);
                lock.unlockAsync(owner).get(10, TimeUnit.SECONDS);
            }
            assertThat(threads.getTotalStartedThreadCount() - before).as("threads started by 400 asynchronous calls")
                    .isLessThan(20);
        }
    }

    /**
     * On a Redis Cluster, a slot move while threads wait has the client subscribe their release channel again on the
     * slot's new owner: that look runs on the scheduler, not a thread of its own, and the waiters still hear the
     * release.
     */
    @Test
    void aClusterClientFollowsASlotMoveOnItsScheduler() throws Exception {
        try (RedisClusterSetup cluster = RedisClusterSetup.start(3, 0)) {
            assumeTrue(Integer.parseInt(cluster.nodes().get(0).version().split("\\.")[0]) >= 7,
                    "sharded pub/sub: Redis 7");
            LettuceConnectionFactory factory = cluster.newConnectionFactory();
            LettuceConnectionFactory otherFactory = cluster.newConnectionFactory();
            RedisLockClient client = RedisLockClient.builder(factory).clientId("cluster-threads")
                    .watchdogTimeout(WATCHDOG).build();
            Sampler sampler = new Sampler(client.getClientId());
            try (RedisLockClient holder = RedisLockClient.builder(otherFactory).build()) {
                sampler.start();
                String name = "threads:moving";
                holder.getLock(name).lock();
                List<CompletableFuture<Boolean>> waits = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    waits.add(CompletableFuture.supplyAsync(() -> {
                        ReentrantDistributedLock lock = client.getLock(name);
                        try {
                            boolean got = lock.tryLock(20, TimeUnit.SECONDS);
                            if (got) {
                                lock.unlock();
                            }
                            return got;
                        }
                        catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                            return false;
                        }
                    }, runnable -> new Thread(runnable).start()));
                }
                Thread.sleep(500); // subscribed
                int slot = SlotHash.getSlot(client.redisKeys(name).lock());
                RedisServer from = cluster.nodeForSlot(slot);
                cluster.migrateSlot(slot, cluster.nodes().stream().filter(node -> node != from).findFirst().orElseThrow());
                Thread.sleep(1_000); // subscribed again on the new owner
                holder.getLock(name).unlock();
                for (CompletableFuture<Boolean> wait : waits) {
                    assertThat(wait.get(30, TimeUnit.SECONDS)).isTrue();
                }
            }
            finally {
                sampler.stop();
                client.close();
                factory.destroy();
                otherFactory.destroy();
            }
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(sampler.alive()).isEmpty());
            assertThat(sampler.seen()).allMatch(name -> name.startsWith("relock-scheduler-")
                    || name.startsWith("relock-events-"), "the scheduler or the listener thread");
            assertThat(sampler.seen()).hasSizeLessThanOrEqualTo(MAX_THREADS);
        }
    }

    /** The threads of the client seen while it ran; asserts they all end after close(). */
    private Set<String> syncWaitersWatchdogHoldsAndALostLock(String clientName) throws Exception {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).clientId(clientName)
                .watchdogTimeout(WATCHDOG).lockLostListener(lost::add).build();
        Sampler sampler = new Sampler(client.getClientId());
        try (RedisLockClient other = RedisLockClient.builder(redis.connectionFactory()).build()) {
            sampler.start();
            ReentrantDistributedLock held = client.getLock("threads:held");
            held.lock(); // a watchdog hold, renewed for a few rounds below
            List<Thread> waiters = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Thread waiter = new Thread(() -> {
                    ReentrantDistributedLock lock = client.getLock("threads:busy");
                    for (int round = 0; round < 5; round++) {
                        lock.lock();
                        try {
                            Thread.sleep(5);
                        }
                        catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                        finally {
                            lock.unlock();
                        }
                    }
                });
                waiter.start();
                waiters.add(waiter);
            }
            for (Thread waiter : waiters) {
                waiter.join();
            }
            Thread.sleep(WATCHDOG.toMillis()); // renewal rounds
            assertThat(other.getLock("threads:held").forceUnlock()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isEmpty());
        }
        finally {
            sampler.stop();
            client.close();
        }
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(sampler.alive()).isEmpty());
        return sampler.seen();
    }

    @Test
    void asyncWaitersRunNoThreadOfTheirOwn() throws Exception {
        RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).clientId("async-threads")
                .watchdogTimeout(WATCHDOG).build();
        Sampler sampler = new Sampler(client.getClientId());
        try {
            sampler.start();
            LockOwner first = client.newOwner();
            ReentrantDistributedLock lock = client.getLock("threads:async");
            assertThat(lock.tryLockAsync(Duration.ZERO, null, first).get(10, TimeUnit.SECONDS))
                    .isTrue();
            List<CompletableFuture<Boolean>> waiting = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                LockOwner owner = client.newOwner();
                // each waiter gives the lock back as soon as it has it
                waiting.add(lock.tryLockAsync(Duration.ofSeconds(20), Duration.ofSeconds(5), owner)
                        .thenCompose(got -> got ? lock.unlockAsync(owner).thenApply(released -> true)
                                : CompletableFuture.completedFuture(false)));
            }
            Thread.sleep(300);
            lock.unlockAsync(first).get(10, TimeUnit.SECONDS);
            for (CompletableFuture<Boolean> waiter : waiting) {
                assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
            }
        }
        finally {
            sampler.stop();
            client.close();
        }
        assertThat(sampler.seen()).as("threads of client " + client.getClientId()).hasSizeLessThanOrEqualTo(MAX_THREADS);
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(sampler.alive()).isEmpty());
    }

    /** Every thread whose name carries the client's id, seen while it ran. */
    private static final class Sampler {

        private final String clientId;
        private final Set<String> seen = new TreeSet<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread = new Thread(this::sample, "threads-test-sampler");

        Sampler(String clientId) {
            this.clientId = clientId;
        }

        void start() {
            thread.start();
        }

        private void sample() {
            while (running.get()) {
                Set<String> now = alive();
                synchronized (seen) {
                    seen.addAll(now);
                }
                try {
                    Thread.sleep(2);
                }
                catch (InterruptedException ex) {
                    return;
                }
            }
        }

        Set<String> alive() {
            Set<String> names = new TreeSet<>();
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                if (thread.isAlive() && thread.getName().contains(clientId)) {
                    names.add(thread.getName());
                }
            }
            return names;
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join();
        }

        Set<String> seen() {
            synchronized (seen) {
                return new TreeSet<>(seen);
            }
        }
    }
}
