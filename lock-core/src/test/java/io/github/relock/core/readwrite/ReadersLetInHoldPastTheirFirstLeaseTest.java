package io.github.relock.core.readwrite;

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
 * Readers let in by a write release hold past the 2 s their places lasted, under watchdogs from the shortest to a
 * long one: none is lost (isLost, unlock and the listeners say so), a writer that tries meanwhile stays out, and
 * nothing is left in Redis.
 */
@Tag("jdk-independent")
@Tag("redis-version-independent")
@Timeout(60)
class ReadersLetInHoldPastTheirFirstLeaseTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @ParameterizedTest
    @ValueSource(ints = {100, 300, 1_500, 5_000, 60_000})
    void noReaderLetInIsLostAndNoWriterGetsInWhileTheyHold(int watchdogMillis) throws Exception {
        String name = "given:past:" + watchdogMillis;
        String hash = LetInClients.hash(name);
        AtomicInteger told = new AtomicInteger();
        RedisLockClient readers = clients.client("readers", Duration.ofMillis(watchdogMillis));
        readers.addLockLostListener(event -> told.incrementAndGet());
        RedisLockClient writers = clients.client("writers", Duration.ofMillis(30_000));
        ReentrantDistributedLock write = writers.getReadWriteLock(name).writeLock();
        write.lock();
        int count = 3;
        CountDownLatch holding = new CountDownLatch(count);
        List<Future<Boolean>> lost = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            lost.add(clients.pool().submit(() -> {
                ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
                read.lock();
                boolean gone;
                try {
                    holding.countDown();
                    Thread.sleep(2_600);
                    gone = read.isLost();
                }
                finally {
                    read.unlock(); // a lost hold throws
                }
                return gone;
            }));
        }
        for (int i = 0; i < 300 && redis.commands().hkeys(hash).stream().filter(f -> f.endsWith(":i")).count() < count;
                i++) {
            Thread.sleep(20);
        }
        Thread.sleep(200);
        write.unlock();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        Future<Boolean> writer = clients.pool().submit(() -> {
            boolean in = write.tryLock(2_000, TimeUnit.MILLISECONDS);
            if (in) {
                write.unlock();
            }
            return in;
        });

        assertThat(writer.get(10, TimeUnit.SECONDS)).as("a writer got in while readers held").isFalse();
        for (Future<Boolean> reader : lost) {
            assertThat(reader.get(10, TimeUnit.SECONDS)).as("a reader's hold lost").isFalse();
        }
        assertThat(told.get()).as("losses reported").isZero();
        Thread.sleep(100);
        assertThat(redis.commands().exists(hash)).as("left in Redis").isZero();
    }

}
