package io.github.relock.core.readwrite;

import static io.github.relock.core.readwrite.LetInClients.ownerOf;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.relock.core.LockOwner;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;
import io.github.relock.test.TestScale;

/**
 * Writer threads (with the watchdog or a fixed lease), explicit-owner writers and readers of several clients contend for one read-write lock, with
 * short waits that end around releases, interrupts, downgrades and a thread switching between the sides: a writer
 * is always alone inside, writers' fencing tokens only grow, each writer's token is the one Redis records for it,
 * and nothing is left in Redis afterwards.
 */
@Tag("jdk-independent")
@Timeout(60)
class WritersLetInUnderContentionTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @ParameterizedTest
    @ValueSource(ints = {100, 1_500, 30_000})
    void writersAreAloneTheirTokensGrowAndMatchRedis(int watchdogMillis) throws Exception {
        String name = "given:contention:" + watchdogMillis;
        String hash = LetInClients.hash(name);
        AtomicInteger writersIn = new AtomicInteger();
        AtomicInteger readersIn = new AtomicInteger();
        AtomicLong lastWriteToken = new AtomicLong();
        List<String> faults = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger timeouts = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TestScale.of(6_000)); // shorter in the repeat runs
        // names that look like the announcement's own entries: its lengths, not its spaces, delimit them
        Duration watchdog = Duration.ofMillis(watchdogMillis);
        List<RedisLockClient> cs = List.of(clients.client("c 12 xw", watchdog), clients.client("größe\n2", watchdog),
                clients.client("3 w 1 ", watchdog));
        List<CompletableFuture<?>> workers = new ArrayList<>();
        for (RedisLockClient c : cs) {
            for (int t = 0; t < 2; t++) {
                boolean blocking = t == 0;
                workers.add(CompletableFuture.runAsync(() -> {
                    ReadWriteDistributedLock rw = c.getReadWriteLock(name);
                    ReentrantDistributedLock write = rw.writeLock();
                    ReentrantDistributedLock read = rw.readLock();
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    while (System.nanoTime() < end) {
                        try {
                            if (r.nextInt(3) == 0) {
                                boolean in = read.tryLock(r.nextInt(1, 40), TimeUnit.MILLISECONDS);
                                if (!in) {
                                    timeouts.incrementAndGet();
                                    continue;
                                }
                                try {
                                    readersIn.incrementAndGet();
                                    if (writersIn.get() != 0) {
                                        faults.add("reader inside with a writer");
                                    }
                                    String owner = ownerOf(c, name);
                                    String inRedis = owner == null ? null : redis.commands().hget(hash, owner + ":t");
                                    if (!String.valueOf(read.fencingToken()).equals(inRedis)) {
                                        faults.add("reader token " + read.fencingToken() + ", Redis " + inRedis);
                                    }
                                    reads.incrementAndGet();
                                    Thread.sleep(r.nextInt(3));
                                }
                                finally {
                                    readersIn.decrementAndGet();
                                    read.unlock();
                                }
                                continue;
                            }
                            boolean in;
                            if (blocking) {
                                write.lock();
                                in = true;
                            }
                            else {
                                in = r.nextBoolean() ? write.tryLock(r.nextInt(1, 40), TimeUnit.MILLISECONDS)
                                        : write.tryLock(r.nextInt(1, 40), 2_000, TimeUnit.MILLISECONDS);
                            }
                            if (!in) {
                                timeouts.incrementAndGet();
                                continue;
                            }
                            try {
                                checkWriter(write, c, name, hash, writersIn, readersIn, lastWriteToken, faults);
                                writes.incrementAndGet();
                                if (r.nextInt(4) == 0) { // a downgrade
                                    read.lock();
                                    read.unlock();
                                }
                                Thread.sleep(r.nextInt(3));
                            }
                            finally {
                                writersIn.decrementAndGet();
                                write.unlock();
                            }
                        }
                        catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                        catch (RuntimeException e) {
                            faults.add(e.toString());
                        }
                    }
                }, clients.pool()));
            }
            // an explicit owner writing asynchronously
            workers.add(CompletableFuture.runAsync(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    LockOwner owner = c.newOwner();
                    ReentrantDistributedLock write = c.getReadWriteLock(name, owner).writeLock();
                    try {
                        boolean in = write.tryLockAsync(Duration.ofMillis(r.nextInt(1, 60)), null, owner)
                                .get(20, TimeUnit.SECONDS);
                        if (!in) {
                            timeouts.incrementAndGet();
                            continue;
                        }
                        try {
                            if (writersIn.incrementAndGet() != 1 || readersIn.get() != 0) {
                                faults.add("owner writer not alone");
                            }
                            long token = write.fencingToken();
                            long before = lastWriteToken.getAndSet(token);
                            if (token <= before) {
                                faults.add("owner writer token " + token + " after " + before);
                            }
                            String inRedis = redis.commands().hget(hash, owner.id() + ":w:t");
                            if (!String.valueOf(token).equals(inRedis)) {
                                faults.add("owner writer token " + token + ", Redis " + inRedis);
                            }
                            writes.incrementAndGet();
                        }
                        finally {
                            writersIn.decrementAndGet();
                            write.unlockAsync(owner).get(20, TimeUnit.SECONDS);
                        }
                    }
                    catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    catch (Exception e) {
                        faults.add(e.toString());
                    }
                }
            }, clients.pool()));
        }
        CompletableFuture.allOf(workers.toArray(new CompletableFuture[0])).get(40, TimeUnit.SECONDS);

        System.out.printf("watchdog %d ms: %d writes, %d reads, %d timeouts, faults %d%n", watchdogMillis,
                writes.get(), reads.get(), timeouts.get(), faults.size());
        assertThat(faults).isEmpty();
        assertThat(writes.get()).isPositive();
        Thread.sleep(100);
        assertThat(redis.commands().hgetall(hash)).as("left in Redis").isEmpty();
    }

    private static void checkWriter(ReentrantDistributedLock write, RedisLockClient c, String name, String hash,
            AtomicInteger writersIn, AtomicInteger readersIn, AtomicLong lastWriteToken, List<String> faults) {
        if (writersIn.incrementAndGet() != 1 || readersIn.get() != 0) {
            faults.add("writer not alone: writers " + writersIn.get() + ", readers " + readersIn.get());
        }
        long token = write.fencingToken();
        long before = lastWriteToken.getAndSet(token);
        if (token <= before) {
            faults.add("writer token " + token + " after " + before);
        }
        String owner = ownerOf(c, name);
        String inRedis = owner == null ? null : redis.commands().hget(hash, owner + ":w:t");
        if (!String.valueOf(token).equals(inRedis)) {
            faults.add("writer token " + token + ", Redis " + inRedis + " (owner " + owner + ")");
        }
    }

}
