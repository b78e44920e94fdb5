package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
 * A writer thread that the last release lets in holds for 4 s, past the 2 s its place lasted, under watchdogs
 * from the shortest to a long one, and takes a read hold inside its write hold at once: it is not lost (isLost,
 * unlock and the listeners say so), no reader or writer gets in meanwhile, and nothing is left in Redis.
 */
@Tag("jdk-independent")
@Tag("redis-version-independent")
@Timeout(60)
class WritersLetInHoldPastTheirFirstLeaseTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @ParameterizedTest
    @ValueSource(ints = {100, 1_500, 30_000, 60_000})
    void noWriterLetInIsLostAndNobodyGetsInWhileItHolds(int watchdogMillis) throws Exception {
        String name = "given:writer:past:" + watchdogMillis;
        String hash = LetInClients.hash(name);
        AtomicInteger told = new AtomicInteger();
        RedisLockClient waiters = clients.client("waiters", Duration.ofMillis(watchdogMillis));
        waiters.addLockLostListener(event -> told.incrementAndGet());
        RedisLockClient others = clients.client("others", Duration.ofMillis(30_000));
        ReentrantDistributedLock held = others.getReadWriteLock(name).writeLock();
        held.lock();
        CountDownLatch holding = new CountDownLatch(1);
        Future<Boolean> writer = clients.pool().submit(() -> {
            ReentrantDistributedLock write = waiters.getReadWriteLock(name).writeLock();
            ReentrantDistributedLock read = waiters.getReadWriteLock(name).readLock();
            write.lock();
            boolean gone;
            try {
                read.lock(); // a downgrade at once
                read.unlock();
                holding.countDown();
                Thread.sleep(4_000);
                gone = write.isLost();
            }
            finally {
                write.unlock(); // a lost hold throws
            }
            return gone;
        });
        for (int i = 0; i < 300 && redis.commands().hkeys(hash).stream().noneMatch(f -> f.endsWith(":w:i")); i++) {
            Thread.sleep(20);
        }
        Thread.sleep(200);
        held.unlock();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        Future<Boolean> otherWriter = clients.pool().submit(() -> {
            boolean in = held.tryLock(3_000, TimeUnit.MILLISECONDS);
            if (in) {
                held.unlock();
            }
            return in;
        });
        Future<Boolean> reader = clients.pool().submit(() -> {
            ReentrantDistributedLock read = others.getReadWriteLock(name).readLock();
            boolean in = read.tryLock(3_000, TimeUnit.MILLISECONDS);
            if (in) {
                read.unlock();
            }
            return in;
        });

        assertThat(otherWriter.get(10, TimeUnit.SECONDS)).as("a writer got in meanwhile").isFalse();
        assertThat(reader.get(10, TimeUnit.SECONDS)).as("a reader got in meanwhile").isFalse();
        assertThat(writer.get(10, TimeUnit.SECONDS)).as("the writer's hold lost").isFalse();
        assertThat(told.get()).as("losses reported").isZero();
        Thread.sleep(100);
        assertThat(redis.commands().exists(hash)).as("left in Redis").isZero();
    }

}
