package io.github.relock.core.outages;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockLostListener;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServer;

/**
 * Redis killed (SIGKILL) and started again on the same port in the middle of waits and holds.
 */
@Timeout(90)
@Tag("jdk-independent")
class RedisRestartTest {

    /**
     * Without persistence the restart frees the lock: a waiter that slept through it on a holder's long
     * watchdog lease must be woken when its client re-subscribes and take the lock soon, not sleep until the
     * lost holder's lease would have ended. After the restart, a release must wake a waiter through pub/sub.
     */
    @Test
    void waiterThroughARestartWithoutDataTakesTheFreedLockSoon() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            AtomicInteger lost = new AtomicInteger();
            RedisLockClient holder = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(1)))
                    .lockLostListener(e -> lost.incrementAndGet()).build();
            RedisLockClient waiter = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(1)))
                    .build();
            try {
                holder.getLock("bk5:restart:a").lock(); // 30 s watchdog lease
                CompletableFuture<Long> waited = takeAndLetGo(waiter, "bk5:restart:a", 20);
                Thread.sleep(500);
                server.kill();
                Thread.sleep(1_000);
                server.restart();
                long restarted = System.nanoTime();
                long acquiredAt = waited.get(25, TimeUnit.SECONDS);
                assertThat(acquiredAt).as("waiter outcome (-1 timed out, -2 failed)").isPositive();
                assertThat((acquiredAt - restarted) / 1_000_000).as("ms from restart to the waiter's hold")
                        .isLessThan(5_000);
                assertThat(Probe.eventually(12_000, () -> lost.get() == 1)).as("holder told of its loss").isTrue();

                // after the restart: a release wakes a waiter through pub/sub, not at lease end
                ReentrantDistributedLock b = holder.getLock("bk5:restart:b");
                b.lock();
                CompletableFuture<Long> second = takeAndLetGo(waiter, "bk5:restart:b", 10);
                Thread.sleep(500);
                long released = System.nanoTime();
                b.unlock();
                long at = second.get(15, TimeUnit.SECONDS);
                assertThat(at).isPositive();
                assertThat((at - released) / 1_000_000).as("ms from release to the waiter's hold").isLessThan(500);
            }
            finally {
                holder.close();
                waiter.close();
            }
        }
    }

    /**
     * With an append-only file synced on every write, the restart keeps the locks: no two owners ever, every
     * timed wait ends within its wait time plus the command timeout (twice) and a margin, and the work goes on.
     */
    @Test
    void contentionThroughAKillAndRestartWithPersistence() throws Exception {
        try (RedisServer server = RedisServer.builder().arg("--appendonly", "yes").arg("--appendfsync", "always")
                .start()) {
            List<RedisLockClient> clients = new ArrayList<>();
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger acquired = new AtomicInteger();
            AtomicInteger lost = new AtomicInteger();
            ConcurrentLinkedQueue<String> slow = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
            LockLostListener count = e -> lost.incrementAndGet();
            for (int i = 0; i < 3; i++) {
                clients.add(RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(1)))
                        .watchdogTimeout(Duration.ofSeconds(3)).lockLostListener(count).build());
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(9);
            List<Thread> threads = new ArrayList<>();
            try {
                for (RedisLockClient client : clients) {
                    for (int t = 0; t < 2; t++) {
                        Thread thread = new Thread(() -> {
                            ReentrantDistributedLock lock = client.getLock("bk5:restart:shared");
                            while (System.nanoTime() < end) {
                                long t0 = System.nanoTime();
                                boolean got;
                                try {
                                    got = lock.tryLock(2, TimeUnit.SECONDS);
                                }
                                catch (Exception ex) {
                                    got = false;
                                    errors.add(ex.getClass().getSimpleName());
                                }
                                long took = (System.nanoTime() - t0) / 1_000_000;
                                if (took > 2_000 + 2 * 1_000 + 700) {
                                    slow.add(took + " ms");
                                }
                                if (!got) {
                                    continue;
                                }
                                acquired.incrementAndGet();
                                try {
                                    if (inside.incrementAndGet() != 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    Thread.sleep(10);
                                    inside.decrementAndGet();
                                }
                                catch (InterruptedException ex) {
                                    inside.decrementAndGet();
                                    return;
                                }
                                finally {
                                    try {
                                        lock.unlock();
                                    }
                                    catch (Exception ex) {
                                        errors.add("unlock " + ex.getClass().getSimpleName());
                                        // a release that could not reach Redis: the lease runs out, or the
                                        // watchdog keeps it (never before close); force it free to go on
                                        if (lock.isHeldByCurrentThread()) {
                                            try {
                                                lock.unlock();
                                            }
                                            catch (Exception again) {
                                                errors.add("unlock again " + again.getClass().getSimpleName());
                                            }
                                        }
                                    }
                                }
                            }
                        }, "bk5-contender");
                        thread.setDaemon(true);
                        thread.start();
                        threads.add(thread);
                    }
                }
                Thread.sleep(2_500);
                int before = acquired.get();
                server.kill();
                Thread.sleep(1_000);
                server.restart();
                for (Thread thread : threads) {
                    thread.join(20_000);
                    assertThat(thread.isAlive()).as("contender still running").isFalse();
                }
                System.out.println("acquired " + before + " before the kill, " + acquired.get() + " in all; errors "
                        + errors + "; lost " + lost.get());
                assertThat(overlaps.get()).as("overlaps").isZero();
                assertThat(slow).as("waits past wait + 2 command timeouts + margin").isEmpty();
                assertThat(acquired.get()).as("acquisitions after the restart").isGreaterThan(before + 20);
                assertThat(clients.get(0).getLock("bk5:restart:shared").tryLock(8, TimeUnit.SECONDS)).isTrue();
                clients.get(0).getLock("bk5:restart:shared").unlock();
            }
            finally {
                clients.forEach(RedisLockClient::close);
            }
        }
    }

    /** Waits for the lock, lets it go at once, and says when it got it: -1 it timed out, -2 it failed. */
    private static CompletableFuture<Long> takeAndLetGo(RedisLockClient waiter, String name, long waitSeconds) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                boolean got = waiter.getLock(name).tryLock(waitSeconds, TimeUnit.SECONDS);
                if (got) {
                    waiter.getLock(name).unlock();
                }
                return got ? System.nanoTime() : -1L;
            }
            catch (Exception ex) {
                return -2L;
            }
        });
    }
}
