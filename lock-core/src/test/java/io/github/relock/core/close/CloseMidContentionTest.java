package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServer;

/**
 * close() at a random moment while threads, explicit owners and asynchronous callers of the client lock, wait
 * and release on a few names of several kinds: close() returns promptly, every call under way ends, no thread of
 * the client outlives it, and nothing stays locked past the longest lease taken.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CloseMidContentionTest {

    @RepeatedTest(4)
    void closeAtARandomMomentEndsEverythingAndLeavesNothingLocked() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient other = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory())
                    .watchdogTimeout(Duration.ofSeconds(2)).build();
            String id = client.getClientId();
            List<String> names = List.of("cm:a", "cm:b", "cm:c");
            ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            ConcurrentLinkedQueue<CompletableFuture<?>> futures = new ConcurrentLinkedQueue<>();
            for (int t = 0; t < 9; t++) {
                int kind = t % 3;
                String name = names.get(t % names.size());
                Thread thread = new Thread(() -> {
                    LockOwner owner = client.newOwner();
                    while (!client.isClosed()) {
                        try {
                            if (kind == 0) {
                                ReentrantDistributedLock lock = ThreadLocalRandom.current().nextBoolean()
                                        ? client.getLock(name) : client.getFairLock(name + ":fair");
                                lock.lock();
                                try {
                                    Thread.onSpinWait();
                                }
                                finally {
                                    lock.unlock();
                                }
                            }
                            else if (kind == 1) {
                                ReentrantDistributedLock lock = client.getReadWriteLock(name + ":rw").writeLock();
                                if (lock.tryLock(1, 5, TimeUnit.SECONDS)) {
                                    lock.unlock();
                                }
                            }
                            else {
                                ReentrantDistributedLock lock = client.getLock(name, owner);
                                CompletableFuture<Void> f = lock.lockAsync(owner);
                                futures.add(f);
                                f.get(30, TimeUnit.SECONDS);
                                lock.unlockAsync(owner).get(30, TimeUnit.SECONDS);
                            }
                        }
                        catch (IllegalStateException expected) {
                            // closed
                        }
                        catch (java.util.concurrent.ExecutionException ex) {
                            if (!(ex.getCause() instanceof IllegalStateException)) {
                                unexpected.add(ex);
                            }
                        }
                        catch (Throwable ex) {
                            if (!client.isClosed()) {
                                unexpected.add(ex);
                            }
                        }
                    }
                });
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
            // the other client contends too, so this client's callers wait
            Thread rival = new Thread(() -> {
                while (!client.isClosed()) {
                    try {
                        ReentrantDistributedLock lock = other.getLock(names.get(ThreadLocalRandom.current().nextInt(3)));
                        if (lock.tryLock(1, 5, TimeUnit.SECONDS)) {
                            Thread.sleep(ThreadLocalRandom.current().nextInt(5));
                            lock.unlock();
                        }
                    }
                    catch (Throwable ex) {
                        unexpected.add(ex);
                    }
                }
            });
            rival.setDaemon(true);
            rival.start();
            Thread.sleep(300 + ThreadLocalRandom.current().nextInt(700));
            long start = System.nanoTime();
            client.close();
            long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(closeMillis).as("close() took").isLessThan(5_000);
            for (Thread thread : threads) {
                thread.join(10_000);
                assertThat(thread.isAlive()).as("a caller still in a call: %s",
                        java.util.Arrays.toString(thread.getStackTrace())).isFalse();
            }
            rival.join(10_000);
            for (CompletableFuture<?> f : futures) {
                assertThat(f).as("an async call never ended").isDone();
            }
            assertThat(Probe.relockThreads(id)).as(String.join("\n", Probe.relockThreadStacks(id))).isEmpty();
            assertThat(unexpected).isEmpty();
            // by the end of the longest lease taken (5 s) what the closed client held is gone; nothing locks any more
            await().atMost(Duration.ofMillis(5_500)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
                for (String name : names) {
                    for (String key : List.of(other.getLock(name).getKey(), other.getFairLock(name + ":fair").getKey(),
                            other.getReadWriteLock(name + ":rw").writeLock().getKey())) {
                        assertThat(server.commands().exists(key)).as("left locked: " + key + " "
                                + server.commands().type(key)).isZero();
                    }
                }
            });
        }
    }
}
