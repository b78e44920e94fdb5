package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockLostException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Reader and writer threads on three clients (odd client ids among them) take a read-write lock in turns for a few
 * seconds, readers with tryLock timeouts that end around the releases and holds from 0 ms to past the 2 s a
 * reader let in holds at first: a writer is never inside with anyone else, writers' tokens only grow, every reader
 * holds the token Redis has for it, no hold is lost, and nothing is left in Redis.
 */
@Tag("jdk-independent")
@Timeout(60)
class ReadersAndWritersTakingTurnsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    private static final String NAME = "given:turns";
    private static final String HASH = "lock:{" + NAME + "}:rw";

    @Test
    void aWriterIsAlwaysAloneAndEveryReaderHoldsItsOwnToken() throws Exception {
        String[] ids = {"12 5 x", "r\nw \u00e9\uD83D\uDE00", "writers"};
        Duration[] watchdogs = {Duration.ofMillis(300), Duration.ofSeconds(60), Duration.ofMillis(1_500)};
        List<RedisLockClient> all = new ArrayList<>();
        for (int i = 0; i < ids.length; i++) {
            all.add(clients.client(ids[i], watchdogs[i]));
        }
        AtomicInteger readersIn = new AtomicInteger();
        AtomicInteger writersIn = new AtomicInteger();
        AtomicLong lastWriteToken = new AtomicLong();
        ConcurrentLinkedQueue<String> faults = new ConcurrentLinkedQueue<>();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger timeouts = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
        long[] holdMillis = {0, 0, 1, 1, 20, 500, 2_500};
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 9; t++) {
            RedisLockClient client = all.get(t % all.size());
            boolean writer = t % 3 == 2;
            workers.add(clients.pool().submit(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (System.nanoTime() - end < 0) {
                    ReentrantDistributedLock lock = writer ? client.getReadWriteLock(NAME).writeLock()
                            : client.getReadWriteLock(NAME).readLock();
                    long waitMillis = writer ? 10_000 : random.nextInt(1, 400);
                    if (!lock.tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
                        timeouts.incrementAndGet();
                        continue;
                    }
                    try {
                        if (writer) {
                            if (writersIn.incrementAndGet() != 1 || readersIn.get() != 0) {
                                faults.add("writer inside with " + (writersIn.get() - 1) + " writers, "
                                        + readersIn.get() + " readers");
                            }
                            long token = lock.fencingToken();
                            if (lastWriteToken.getAndAccumulate(token, Math::max) >= token) {
                                faults.add("write token " + token + " not above " + lastWriteToken.get());
                            }
                            writes.incrementAndGet();
                            Thread.sleep(random.nextInt(0, 3));
                            writersIn.decrementAndGet();
                        }
                        else {
                            readersIn.incrementAndGet();
                            if (writersIn.get() != 0) {
                                faults.add("reader inside with a writer");
                            }
                            String field = client.heldLocks().stream()
                                    .filter(h -> Thread.currentThread().getName().equals(h.ownerThread()))
                                    .findFirst().orElseThrow().ownerId();
                            String inRedis = redis.commands().hget(HASH, field + ":t");
                            if (!String.valueOf(lock.fencingToken()).equals(inRedis)) {
                                faults.add("reader token " + lock.fencingToken() + ", Redis " + inRedis);
                            }
                            reads.incrementAndGet();
                            Thread.sleep(holdMillis[random.nextInt(holdMillis.length)]);
                            if (lock.isLost()) {
                                faults.add("reader hold lost");
                            }
                            readersIn.decrementAndGet();
                        }
                    }
                    finally {
                        try {
                            lock.unlock();
                        }
                        catch (LockLostException lost) {
                            faults.add("lost at unlock: " + lost.getMessage());
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(40, TimeUnit.SECONDS);
        }
        Thread.sleep(300); // give-backs of readers that gave up
        Map<String, String> left = redis.commands().hgetall(HASH);
        System.out.printf("reads %d, writes %d, read timeouts %d, faults %d%n", reads.get(), writes.get(),
                timeouts.get(), faults.size());
        assertThat(faults).as("faults").isEmpty();
        assertThat(reads.get()).isGreaterThan(8);
        assertThat(writes.get()).isGreaterThan(4);
        assertThat(left).as("holds or places left").isEmpty();
    }
}
