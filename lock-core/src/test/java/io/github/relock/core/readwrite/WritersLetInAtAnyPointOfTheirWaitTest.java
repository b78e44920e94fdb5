package io.github.relock.core.readwrite;

import static io.github.relock.core.readwrite.LetInClients.ownerOf;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A writer thread that the last reader's release lets in, at any point of its wait (from just after it began to
 * past 2 s, when its place has been renewed), holds the token Redis records for it, for 2.5 s, with none lost and
 * nobody else let in meanwhile.
 */
@Tag("jdk-independent")
@Tag("redis-version-independent")
@Timeout(60)
class WritersLetInAtAnyPointOfTheirWaitTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @ParameterizedTest
    @ValueSource(ints = {100, 3_000, 30_000})
    void theWriterHoldsWhatRedisRecordsWheneverItIsLetIn(int watchdogMillis) throws Exception {
        AtomicInteger told = new AtomicInteger();
        RedisLockClient writers = clients.client("writers", Duration.ofMillis(watchdogMillis));
        writers.addLockLostListener(event -> told.incrementAndGet());
        RedisLockClient readers = clients.client("readers", Duration.ofMillis(30_000));
        RedisLockClient others = clients.client("others", Duration.ofMillis(30_000));
        int locks = 8;
        List<Future<String>> results = new ArrayList<>();
        for (int k = 0; k < locks; k++) {
            String name = "given:phase:" + watchdogMillis + ":" + k;
            String hash = LetInClients.hash(name);
            long releaseAfter = 50 + 300L * k;
            results.add(clients.pool().submit(() -> {
                CountDownLatch reading = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                Future<?> reader = clients.pool().submit(() -> {
                    ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
                    read.lock();
                    try {
                        reading.countDown();
                        release.await();
                    }
                    finally {
                        read.unlock();
                    }
                    return null;
                });
                reading.await();
                Future<String> writer = clients.pool().submit(() -> {
                    ReentrantDistributedLock write = writers.getReadWriteLock(name).writeLock();
                    write.lock();
                    try {
                        String owner = ownerOf(writers, name);
                        String first = write.fencingToken() + "/" + redis.commands().hget(hash, owner + ":w:t");
                        Thread.sleep(2_500);
                        String last = write.fencingToken() + "/" + redis.commands().hget(hash, owner + ":w:t");
                        return first + " " + last + " lost=" + write.isLost();
                    }
                    finally {
                        write.unlock();
                    }
                });
                Thread.sleep(releaseAfter);
                release.countDown();
                reader.get(10, TimeUnit.SECONDS);
                Thread.sleep(100);
                ReentrantDistributedLock otherWrite = others.getReadWriteLock(name).writeLock();
                ReentrantDistributedLock otherRead = others.getReadWriteLock(name).readLock();
                boolean wrote = otherWrite.tryLock(1_000, TimeUnit.MILLISECONDS);
                if (wrote) {
                    otherWrite.unlock();
                }
                boolean read = otherRead.tryLock(500, TimeUnit.MILLISECONDS);
                if (read) {
                    otherRead.unlock();
                }
                String held = writer.get(20, TimeUnit.SECONDS);
                Thread.sleep(50);
                return "release after " + releaseAfter + " ms: " + held + " other writer in=" + wrote
                        + " other reader in=" + read + " left=" + redis.commands().hgetall(hash);
            }));
        }
        List<String> seen = new ArrayList<>();
        for (Future<String> result : results) {
            seen.add(result.get(40, TimeUnit.SECONDS));
        }
        seen.forEach(System.out::println);
        for (String line : seen) {
            String[] tokens = line.split(": ")[1].split(" ");
            assertThat(tokens[0].split("/")[1]).as(line).isEqualTo(tokens[0].split("/")[0]);
            assertThat(tokens[1].split("/")[1]).as(line).isEqualTo(tokens[1].split("/")[0]);
            assertThat(line).contains("lost=false", "other writer in=false", "other reader in=false", "left={}");
        }
        assertThat(told.get()).as("losses reported").isZero();
    }

}
