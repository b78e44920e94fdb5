package io.github.relock.core.allornone;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.MultiLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * Multi-locks over overlapping names, with a lease much shorter than their wait, contend with plain locks of
 * three clients: no name is ever held by two at once while a holder is inside (well within its lease), every
 * caller gets through, and nothing is left locked.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ShortLeaseMultiLockContentionTest {

    private static final int NAMES = 4;

    @Test
    void shortLeasesLongWaitsNeverOverlapAndLeaveNothing() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            List<RedisLockClient> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                clients.add(RedisLockClient.builder(server.newConnectionFactory()).build());
            }
            try {
                AtomicIntegerArray inside = new AtomicIntegerArray(NAMES);
                ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 9; t++) {
                    RedisLockClient client = clients.get(t % 3);
                    int kind = t % 3;
                    threads.add(started(() -> {
                        while (System.nanoTime() < end) {
                            int first = ThreadLocalRandom.current().nextInt(NAMES);
                            int second = (first + 1 + ThreadLocalRandom.current().nextInt(NAMES - 1)) % NAMES;
                            int[] mine = kind == 2 ? new int[] {first} : new int[] {first, second};
                            ReentrantDistributedLock lock = kind == 2 ? client.getLock("ml:" + first)
                                    : client.getMultiLock("ml:" + first, "ml:" + second);
                            try {
                                if (!lock.tryLock(3_000, 400, TimeUnit.MILLISECONDS)) {
                                    continue;
                                }
                                try {
                                    for (int n : mine) {
                                        if (inside.incrementAndGet(n) != 1) {
                                            problems.add("two inside ml:" + n + " (" + lock + ")");
                                        }
                                    }
                                    Thread.sleep(ThreadLocalRandom.current().nextInt(20));
                                    if (lock instanceof MultiLock multi) {
                                        for (ReentrantDistributedLock part : multi.locks()) {
                                            if (!part.isHeldByCurrentThread()) {
                                                problems.add("part not held: " + part.getName());
                                            }
                                        }
                                    }
                                    for (int n : mine) {
                                        inside.decrementAndGet(n);
                                    }
                                }
                                finally {
                                    lock.unlock();
                                }
                            }
                            catch (Throwable ex) {
                                problems.add(ex.toString());
                            }
                        }
                    }));
                }
                for (Thread thread : threads) {
                    thread.join(60_000);
                    assertThat(thread.isAlive()).as("stuck: %s", java.util.Arrays.toString(thread.getStackTrace()))
                            .isFalse();
                }
                assertThat(problems).isEmpty();
                for (int n = 0; n < NAMES; n++) {
                    assertThat(server.commands().exists(clients.get(0).getLock("ml:" + n).getKey())).isZero();
                }
                for (RedisLockClient client : clients) {
                    assertThat(client.heldLocks()).isEmpty();
                }
            }
            finally {
                clients.forEach(RedisLockClient::close);
            }
        }
    }

    private static Thread started(Runnable body) {
        Thread thread = new Thread(body);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
