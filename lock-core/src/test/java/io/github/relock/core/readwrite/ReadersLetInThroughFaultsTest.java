package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;
import io.github.relock.test.RedisServerExtension;

/**
 * Readers let in by a write release while something goes wrong: their pub/sub connection cut as the release is
 * announced (they get in with their next attempt, holding their own tokens), or Redis paused past their first lease
 * under watchdogs short and long (the hold is reported lost, to listeners too, by the time a writer gets in).
 */
@Tag("jdk-independent")
@Tag("redis-version-independent")
@Timeout(60)
class ReadersLetInThroughFaultsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @Test
    void readersWhosePubSubConnectionIsCutAtTheReleaseGetInWithTheirOwnTokens() throws Exception {
        String name = "given:cut";
        String hash = LetInClients.hash(name);
        RedisLockClient readers = clients.client("readers", Duration.ofSeconds(30));
        ReentrantDistributedLock write = clients.client("writer", Duration.ofSeconds(30)).getReadWriteLock(name)
                .writeLock();
        write.lock();
        int count = 4;
        Map<String, String> tokens = new ConcurrentHashMap<>();
        CountDownLatch holding = new CountDownLatch(count);
        CountDownLatch checked = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            done.add(clients.pool().submit(() -> {
                ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
                read.lock();
                try {
                    String thread = Thread.currentThread().getName();
                    tokens.put(readers.heldLocks().stream().filter(h -> thread.equals(h.ownerThread())).findFirst()
                            .orElseThrow().ownerId(), String.valueOf(read.fencingToken()));
                    holding.countDown();
                    checked.await();
                }
                finally {
                    read.unlock();
                }
                return null;
            }));
        }
        clients.waitForPlaces(name, count);
        redis.commands().clientKill(io.lettuce.core.KillArgs.Builder.typePubsub());
        write.unlock();
        long released = System.nanoTime();

        assertThat(holding.await(10, TimeUnit.SECONDS)).as("readers in").isTrue();
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        Map<String, String> inRedis = new java.util.HashMap<>();
        tokens.keySet().forEach(field -> inRedis.put(field, redis.commands().hget(hash, field + ":t")));
        checked.countDown();
        for (Future<?> reader : done) {
            reader.get(10, TimeUnit.SECONDS);
        }
        System.out.printf("readers in %d ms after the release, their subscription cut%n", tookMillis);
        assertThat(tokens).as("each reader's token, here and in Redis").isEqualTo(inRedis);
        assertThat(tookMillis).as("in with their next attempt").isLessThan(3_000);
        assertThat(redis.commands().exists(hash)).as("left in Redis").isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {300, 1_500, 5_000})
    void aReaderLetInIsReportedLostByTheTimeAWriterGetsInAfterRedisWasPausedPastItsFirstLease(int watchdogMillis,
            RedisServer server) throws Exception {
        String name = "given:paused:" + watchdogMillis;
        CompletableFuture<Long> toldAt = new CompletableFuture<>();
        RedisLockClient readers = clients.add(clients.builder("readers", Duration.ofMillis(watchdogMillis),
                Duration.ofSeconds(1)).build());
        readers.addLockLostListener(event -> toldAt.complete(System.nanoTime()));
        ReentrantDistributedLock write = clients.client("writer", Duration.ofSeconds(30)).getReadWriteLock(name)
                .writeLock();
        ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
        write.lock();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Future<Boolean> reader = clients.pool().submit(() -> {
            read.lock();
            holding.countDown();
            done.await();
            return read.isLost();
        });
        clients.waitForPlaces(name, 1);
        write.unlock();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        server.pause();
        Thread.sleep(Math.max(3_000, watchdogMillis + 1_000));
        server.resume();
        long writerIn = clients.pool().submit(() -> {
            write.lock();
            long at = System.nanoTime();
            write.unlock();
            return at;
        }).get(20, TimeUnit.SECONDS);
        Long told = null;
        try {
            told = toldAt.get(2, TimeUnit.SECONDS);
        }
        catch (java.util.concurrent.TimeoutException notYet) {
            // told later, or never
        }
        done.countDown();

        assertThat(reader.get(10, TimeUnit.SECONDS)).as("the reader's hold lost").isTrue();
        assertThat(told).as("listeners told").isNotNull();
        System.out.printf("watchdog %d ms: told %d ms before the writer got in%n", watchdogMillis,
                TimeUnit.NANOSECONDS.toMillis(writerIn - told));
        assertThat(writerIn - told).as("told before the writer got in").isPositive();
    }

}
