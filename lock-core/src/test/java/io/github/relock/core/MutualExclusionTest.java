package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.test.RedisServerExtension;
import io.github.relock.test.TestScale;

/**
 * Several clients (each with its own connections, as separate processes would have) and threads
 * contend for a few keys, re-entering to random depths; the checker must see no overlap and no lost
 * update. The same run with ownership removed must show both, or the checker proves nothing.
 */
@Timeout(180)
class MutualExclusionTest {

    static final int CLIENTS = 3;
    static final int THREADS_PER_CLIENT = 8;
    static final int KEYS = 4;
    static final int ACQUISITIONS = TestScale.of(20_000);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void noOverlapsAndNoLostUpdates() throws Exception {
        Result result = contend(ACQUISITIONS, (client, key) -> client.getLock("key-" + key));
        System.out.printf("mutual exclusion: %d acquisitions, %d clients x %d threads, %d keys, %d ms: "
                + "%d overlaps, %d lost updates, %d timed-out waits%n", result.sections, CLIENTS, THREADS_PER_CLIENT,
                KEYS, result.millis, result.overlaps, result.lostUpdates, result.timeouts);
        assertThat(result.errors).isZero();
        assertThat(result.timeouts).isZero();
        assertThat(result.sections).isEqualTo(ACQUISITIONS);
        assertThat(result.overlaps).isZero();
        assertThat(result.lostUpdates).isZero();
    }

    @Test
    void checkerCatchesALockWithOwnershipRemoved() throws Exception {
        // broken on purpose: every thread of a client shares one owner, so each "re-enters" the others' hold
        List<LockOwner> shared = new ArrayList<>();
        Result result = contend(2_000, (client, key) -> {
            synchronized (shared) {
                LockOwner owner = shared.stream().filter(o -> o.id().startsWith(client.getClientId())).findFirst()
                        .orElseGet(() -> {
                            LockOwner created = client.newOwner();
                            shared.add(created);
                            return created;
                        });
                return client.getLock("broken-" + key, owner);
            }
        });
        System.out.printf("ownership removed: %d sections, %d overlaps, %d lost updates%n", result.sections,
                result.overlaps, result.lostUpdates);
        assertThat(result.overlaps).isPositive();
        assertThat(result.lostUpdates).isPositive();
    }

    record Result(long sections, long overlaps, long lostUpdates, long timeouts, long errors, long millis) {
    }

    private Result contend(int acquisitions, BiFunction<RedisLockClient, Integer, ReentrantDistributedLock> lockFor)
            throws Exception {
        ExclusionChecker checker = new ExclusionChecker(KEYS);
        List<LettuceConnectionFactory> factories = new ArrayList<>();
        List<RedisLockClient> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            LettuceConnectionFactory factory = redis.newConnectionFactory();
            factories.add(factory);
            // short watchdog: a hold stranded by the broken variant frees quickly
            clients.add(RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(2)).build());
        }
        AtomicInteger remaining = new AtomicInteger(acquisitions);
        AtomicInteger timeouts = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS * THREADS_PER_CLIENT);
        long start = System.nanoTime();
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (RedisLockClient client : clients) {
                for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                    workers.add(pool.submit(() -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        while (remaining.getAndDecrement() > 0) {
                            int key = random.nextInt(KEYS);
                            ReentrantDistributedLock lock = lockFor.apply(client, key);
                            int depth = 1 + random.nextInt(3);
                            int held = 0;
                            try {
                                if (!lock.tryLock(30, TimeUnit.SECONDS)) {
                                    timeouts.incrementAndGet();
                                    continue;
                                }
                                held = 1;
                                while (held < depth) {
                                    lock.lock();
                                    held++;
                                }
                                checker.criticalSection(key);
                            }
                            catch (RuntimeException ex) {
                                errors.incrementAndGet(); // only the broken variant gets here
                            }
                            finally {
                                for (; held > 0; held--) {
                                    try {
                                        lock.unlock();
                                    }
                                    catch (RuntimeException ex) {
                                        errors.incrementAndGet();
                                    }
                                }
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> worker : workers) {
                worker.get(150, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
            clients.forEach(RedisLockClient::close);
            factories.forEach(LettuceConnectionFactory::destroy);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return new Result(checker.sections(), checker.overlaps(), checker.lostUpdates(), timeouts.get(), errors.get(), millis);
    }
}
