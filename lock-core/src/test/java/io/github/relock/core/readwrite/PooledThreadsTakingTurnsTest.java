package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Subscribers;
import io.github.relock.test.RedisServerExtension;

/**
 * A few pooled threads run many short read and write tasks on several read-write locks through two clients: a
 * thread's later wait never takes up a hold a release gave its earlier wait, on the same lock or another. Each
 * writer is alone, each hold's token is the one Redis records for it, no wait outlives its wait time by a second,
 * and nothing is left in Redis, in pub/sub or in the clients' held locks.
 */
@Tag("redis-version-independent")
@Tag("jdk-independent")
@Timeout(60)
class PooledThreadsTakingTurnsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String[] NAMES = { "pooled:a", "pooled:b", "pooled:c" };

    private final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void tearDown() {
        clients.forEach(RedisLockClient::close);
    }

    @Test
    void pooledThreadsStayAloneAsWritersAndHoldTheirOwnTokens() throws Exception {
        for (String id : new String[] { "pool-one", "pool-two" }) {
            clients.add(RedisLockClient.builder(redis.connectionFactory()).clientId(id)
                    .watchdogTimeout(Duration.ofSeconds(3)).build());
        }
        Map<String, AtomicInteger> writers = Map.of(NAMES[0], new AtomicInteger(), NAMES[1], new AtomicInteger(),
                NAMES[2], new AtomicInteger());
        Map<String, AtomicInteger> readers = Map.of(NAMES[0], new AtomicInteger(), NAMES[1], new AtomicInteger(),
                NAMES[2], new AtomicInteger());
        ConcurrentLinkedQueue<String> faults = new ConcurrentLinkedQueue<>();
        AtomicInteger held = new AtomicInteger();
        AtomicInteger timedOut = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        ExecutorService drivers = Executors.newFixedThreadPool(3);
        List<Future<?>> tasks = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        for (int t = 0; t < 3; t++) {
            int seed = t;
            tasks.add(drivers.submit(() -> {
                Random random = new Random(seed);
                while (System.nanoTime() < end) {
                    // each loop is a fresh task on a reused thread: a short job on a random lock and side
                    Future<?> job = pool.submit(() -> job(random.nextLong(), writers, readers, faults, held,
                            timedOut));
                    try {
                        job.get(30, TimeUnit.SECONDS);
                    }
                    catch (Exception ex) {
                        faults.add("job: " + ex);
                        return;
                    }
                }
            }));
        }
        for (Future<?> task : tasks) {
            task.get(50, TimeUnit.SECONDS);
        }
        drivers.shutdown();
        pool.shutdown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        System.out.printf("pooled: %d holds, %d waits ran out%n", held.get(), timedOut.get());
        assertThat(faults).isEmpty();
        assertThat(held.get()).isGreaterThan(50);
        // a scheduler and a thread for listeners and callbacks per client, however many tasks ran
        assertThat(relockThreads()).as("the clients' threads").isLessThanOrEqualTo(2L * clients.size());
        for (RedisLockClient client : clients) {
            assertThat(client.heldLocks()).isEmpty();
        }
        for (String name : NAMES) {
            for (int i = 0; i < 100 && redis.commands().exists("lock:{" + name + "}:rw") > 0; i++) {
                Thread.sleep(50);
            }
            assertThat(redis.commands().hgetall("lock:{" + name + "}:rw")).as(name + " left").isEmpty();
            String channel = clients.get(0).redisKeys(name).releaseChannel();
            assertThat(Subscribers.onceIdle(redis.commands(), channel)).isZero();
        }
        // each client's own channel stays while it is open; no lock's channel does, once the client let it go
        assertThat(Subscribers.channelsOnceIdle(redis.commands(), c -> c.startsWith("lock:__relock_client__:")))
                .allMatch(c -> c.startsWith("lock:__relock_client__:"));
    }

    @Test
    void aPooledThreadsNextWaitIsNotLetInByTheReleaseItsLastWaitWasFor() throws Exception {
        RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).clientId("one-thread")
                .watchdogTimeout(Duration.ofSeconds(30)).build();
        RedisLockClient writer = RedisLockClient.builder(redis.connectionFactory()).clientId("writer")
                .watchdogTimeout(Duration.ofSeconds(30)).build();
        clients.add(client);
        clients.add(writer);
        ExecutorService one = Executors.newSingleThreadExecutor();
        try {
            for (String second : new String[] { NAMES[0], NAMES[1] }) {
                ReentrantDistributedLock first = writer.getReadWriteLock(NAMES[0]).writeLock();
                ReentrantDistributedLock next = writer.getReadWriteLock(NAMES[1]).writeLock();
                first.lock();
                next.lock();
                // the earlier wait runs out on the first lock; the thread's next task waits on `second`
                Future<Boolean> earlier = one.submit(() -> client.getReadWriteLock(NAMES[0]).readLock()
                        .tryLock(300, TimeUnit.MILLISECONDS));
                ReentrantDistributedLock later = client.getReadWriteLock(second).readLock();
                Future<String> waiting = one.submit(() -> {
                    later.lock();
                    try {
                        String field = later.currentHold().map(h -> h.ownerId()).orElse("?");
                        return later.fencingToken() + " " + redis.commands().hget("lock:{" + second + "}:rw",
                                field + ":t");
                    }
                    finally {
                        later.unlock();
                    }
                });
                assertThat(earlier.get(5, TimeUnit.SECONDS)).isFalse();
                if (second.equals(NAMES[1])) {
                    first.unlock(); // what the earlier wait waited for: the later one must go on waiting
                    Thread.sleep(500);
                    assertThat(waiting).as("let in by the other lock's release").isNotDone();
                    next.unlock();
                }
                else {
                    next.unlock();
                    Thread.sleep(300);
                    first.unlock();
                }
                String[] seen = waiting.get(5, TimeUnit.SECONDS).split(" ");
                assertThat(seen[0]).isEqualTo(seen[1]);
                for (String name : NAMES) {
                    assertThat(redis.commands().exists("lock:{" + name + "}:rw")).as(name).isZero();
                }
            }
        }
        finally {
            one.shutdownNow();
        }
    }

    private static long relockThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("relock")).count();
    }

    private void job(long seed, Map<String, AtomicInteger> writers, Map<String, AtomicInteger> readers,
            ConcurrentLinkedQueue<String> faults, AtomicInteger held, AtomicInteger timedOut) {
        Random random = new Random(seed);
        String name = NAMES[random.nextInt(NAMES.length)];
        RedisLockClient client = clients.get(random.nextInt(clients.size()));
        boolean write = random.nextInt(3) == 0;
        ReentrantDistributedLock lock = write ? client.getReadWriteLock(name).writeLock()
                : client.getReadWriteLock(name).readLock();
        long waitMillis = random.nextInt(4) == 0 ? 0 : 20 + random.nextInt(400);
        long started = System.nanoTime();
        boolean got;
        try {
            if (random.nextInt(5) == 0) {
                lock.lock(); // no wait time: a blocking wait that lasts as long as the holders do
                got = true;
                waitMillis = 30_000;
            }
            else {
                got = lock.tryLock(waitMillis, TimeUnit.MILLISECONDS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return;
        }
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (waited > waitMillis + 1_000) {
            faults.add(name + ": a " + waitMillis + " ms wait took " + waited + " ms");
        }
        if (!got) {
            timedOut.incrementAndGet();
            if (lock.isHeldByCurrentThread()) {
                faults.add(name + ": held after a wait that ran out");
            }
            return;
        }
        held.incrementAndGet();
        AtomicInteger side = write ? writers.get(name) : readers.get(name);
        int inside = side.incrementAndGet();
        try {
            if (write && (inside > 1 || readers.get(name).get() > 0)) {
                faults.add(name + ": a writer with " + (inside - 1) + " writers, " + readers.get(name).get()
                        + " readers");
            }
            if (!write && writers.get(name).get() > 0) {
                faults.add(name + ": a reader with a writer");
            }
            if (lock.getHoldCount() != 1 || !lock.isHeldByCurrentThread()) {
                faults.add(name + ": hold count " + lock.getHoldCount());
            }
            long token = lock.fencingToken();
            String field = lock.currentHold().map(h -> h.ownerId()).orElse("?");
            String inRedis = redis.commands().hget("lock:{" + name + "}:rw", field + (write ? ":w" : "") + ":t");
            if (!String.valueOf(token).equals(inRedis)) {
                faults.add(name + ": token " + token + ", Redis has " + inRedis + " for " + field
                        + redis.commands().hgetall("lock:{" + name + "}:rw"));
            }
            sleep(random.nextInt(30));
        }
        finally {
            side.decrementAndGet();
            lock.unlock();
        }
        if (lock.isHeldByCurrentThread()) {
            faults.add(name + ": still held after its release");
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
