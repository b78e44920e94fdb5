package io.github.relock.core.owners;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * One explicit owner used at once from many threads, with blocking and asynchronous calls, plain re-entries and
 * lease-lengthening ones, while another client contends: every level taken is given back, the owner's calls never
 * fail, and at the end nothing is locked and the client lists no hold.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class OneOwnerOnManyThreadsTest {

    @Test
    void manyThreadsOfOneOwnerLeaveNothingLocked() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient rival = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            String name = "oneowner";
            LockOwner owner = client.newOwner();
            ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 12; t++) {
                int kind = t % 4;
                threads.add(started(() -> {
                    ReentrantDistributedLock lock = client.getLock(name, owner);
                    while (System.nanoTime() < end) {
                        try {
                            switch (kind) {
                                case 0 -> {
                                    lock.lock();
                                    lock.unlock();
                                }
                                case 1 -> {
                                    if (lock.tryLock(1, 30, TimeUnit.SECONDS)) {
                                        lock.unlock();
                                    }
                                }
                                case 2 -> {
                                    lock.lockAsync(owner).get(30, TimeUnit.SECONDS);
                                    lock.unlockAsync(owner).get(30, TimeUnit.SECONDS);
                                }
                                default -> {
                                    if (lock.tryLockAsync(Duration.ofSeconds(1),
                                            Duration.ofSeconds(ThreadLocalRandom.current().nextInt(20, 60)), owner)
                                            .get(30, TimeUnit.SECONDS)) {
                                        lock.unlockAsync(owner).get(30, TimeUnit.SECONDS);
                                    }
                                }
                            }
                        }
                        catch (Throwable ex) {
                            problems.add("kind " + kind + ": " + ex);
                        }
                    }
                }));
            }
            threads.add(started(() -> {
                while (System.nanoTime() < end) {
                    try {
                        ReentrantDistributedLock lock = rival.getLock(name);
                        if (lock.tryLock(1, 10, TimeUnit.SECONDS)) {
                            lock.unlock();
                        }
                    }
                    catch (Throwable ex) {
                        problems.add("rival: " + ex);
                    }
                }
            }));
            for (Thread thread : threads) {
                thread.join(60_000);
                assertThat(thread.isAlive()).as("stuck: %s", java.util.Arrays.toString(thread.getStackTrace()))
                        .isFalse();
            }
            assertThat(problems).isEmpty();
            assertThat(client.heldLocks()).isEmpty();
            assertThat(server.commands().exists(client.getLock(name).getKey())).as("left locked: "
                    + server.commands().hgetall(client.getLock(name).getKey())).isZero();
        }
    }

    private static Thread started(Runnable body) {
        Thread thread = new Thread(body);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
