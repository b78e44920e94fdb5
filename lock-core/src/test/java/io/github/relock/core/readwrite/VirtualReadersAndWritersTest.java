package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.VirtualThreads;
import io.github.relock.test.RedisServerExtension;

/**
 * Hundreds of virtual threads read one read-write lock while a few write it, through two clients: writers are alone,
 * every reader gets in with the token Redis records for it, and nothing is left once they are done.
 */
@EnabledForJreRange(minVersion = 21)
@Timeout(60)
class VirtualReadersAndWritersTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String NAME = "virtual:rw";

    /**
     * Readers: 300 take about 2 s. With 1,000 (about 12 s) every attempt's script reads a hash of 2,000 fields, and
     * Redis is busy for nearly the whole run.
     */
    private static final int READERS = 300;

    private final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void tearDown() {
        clients.forEach(RedisLockClient::close);
    }

    @Test
    void hundredsOfVirtualReadersAndFourWritersKeepTheWritersAlone() throws Exception {
        for (String id : new String[] { "virtual-one", "virtual-two" }) {
            clients.add(RedisLockClient.builder(redis.connectionFactory()).clientId(id)
                    .watchdogTimeout(Duration.ofSeconds(5)).build());
        }
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        ConcurrentLinkedQueue<String> faults = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        AtomicLong longestWait = new AtomicLong();
        long started = System.nanoTime();
        for (int i = 0; i < READERS + 4; i++) {
            boolean writer = i % (READERS / 4 + 1) == 0;
            RedisLockClient client = clients.get(i % 2);
            threads.add(VirtualThreads.start(() -> {
                ReentrantDistributedLock lock = writer ? client.getReadWriteLock(NAME).writeLock()
                        : client.getReadWriteLock(NAME).readLock();
                for (int round = 0; round < (writer ? 10 : 1); round++) {
                    long asked = System.nanoTime();
                    lock.lock();
                    long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
                    longestWait.accumulateAndGet(waitedMs, Math::max);
                    try {
                        int inside = (writer ? writers : readers).incrementAndGet();
                        if (writer ? inside > 1 || readers.get() > 0 : writers.get() > 0) {
                            faults.add((writer ? "writer" : "reader") + " with " + writers.get() + " writers, "
                                    + readers.get() + " readers");
                        }
                        String field = lock.currentHold().map(h -> h.ownerId()).orElse("?");
                        String token = redis.commands().hget("lock:{" + NAME + "}:rw",
                                field + (writer ? ":w" : "") + ":t");
                        if (!String.valueOf(lock.fencingToken()).equals(token) || lock.getHoldCount() != 1) {
                            faults.add(field + ": token " + lock.fencingToken() + ", Redis " + token + ", count "
                                    + lock.getHoldCount());
                        }
                        Thread.sleep(writer ? 20 : ThreadLocalRandom.current().nextInt(1, 10));
                        (writer ? writes : reads).incrementAndGet();
                    }
                    finally {
                        (writer ? writers : readers).decrementAndGet();
                        lock.unlock();
                    }
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(50));
            assertThat(thread.isAlive()).as("a thread still waits").isFalse();
        }
        System.out.printf("virtual: %d reads, %d writes in %d ms, longest wait %d ms%n", reads.get(), writes.get(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), longestWait.get());
        assertThat(faults).isEmpty();
        assertThat(reads.get()).isEqualTo(READERS);
        assertThat(writes.get()).isEqualTo(40);
        for (RedisLockClient client : clients) {
            assertThat(client.heldLocks()).isEmpty();
        }
        assertThat(redis.commands().exists("lock:{" + NAME + "}:rw")).isZero();
        String channel = clients.get(0).redisKeys(NAME).releaseChannel();
        for (int i = 0; i < 50 && redis.commands().pubsubChannels().stream().anyMatch(c -> c.contains(NAME)); i++) {
            Thread.sleep(50);
        }
        assertThat(redis.commands().pubsubChannels()).as("channels of " + channel)
                .allMatch(c -> c.startsWith("lock:__relock_client__:"));
    }
}
