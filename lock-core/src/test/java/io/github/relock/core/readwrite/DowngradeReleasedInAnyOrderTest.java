package io.github.relock.core.readwrite;

import static io.github.relock.core.readwrite.LetInClients.hash;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A writer that re-enters its write hold and takes a read hold under it gives them back in any order while readers
 * of its own client and of another wait: no reader gets in before the writer's last write release, every reader
 * gets in soon after it with the token Redis records, and the writer's counts follow each of its calls.
 */
@Tag("jdk-independent")
@Timeout(60)
class DowngradeReleasedInAnyOrderTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    /** W: take the write side, R: take the read side, w: release the write side, r: release the read side. */
    @ParameterizedTest
    @ValueSource(strings = { "WWRwwr", "WWRrww", "WWRwrw", "WRWrww", "WRWwrw", "WRRwrr", "WRWwwr" })
    void readersGetInOnlyAfterTheLastWriteRelease(String calls) throws Exception {
        String name = "downgrade:" + calls;
        RedisLockClient mine = clients.client("mine", Duration.ofSeconds(30));
        RedisLockClient theirs = clients.client("theirs", Duration.ofSeconds(30));
        ReadWriteDistributedLock rw = mine.getReadWriteLock(name);
        AtomicBoolean writing = new AtomicBoolean();
        AtomicLong writeEnded = new AtomicLong();
        ConcurrentLinkedQueue<String> faults = new ConcurrentLinkedQueue<>();
        CountDownLatch writerDone = new CountDownLatch(1);
        List<Future<Long>> readers = new ArrayList<>();
        Future<?> writer = clients.pool().submit(() -> {
            ReentrantDistributedLock write = rw.writeLock();
            ReentrantDistributedLock read = rw.readLock();
            int writes = 0;
            int reads = 0;
            for (char call : calls.toCharArray()) {
                switch (call) {
                    case 'W' -> {
                        write.lock();
                        writes++;
                        writing.set(true);
                    }
                    case 'R' -> {
                        read.lock();
                        reads++;
                    }
                    case 'w' -> {
                        if (writes == 1) {
                            writeEnded.set(System.nanoTime()); // set first: a reader may be in as unlock returns
                            writing.set(false);
                        }
                        write.unlock();
                        writes--;
                    }
                    default -> {
                        read.unlock();
                        reads--;
                    }
                }
                if (call == 'W' && readers.isEmpty()) {
                    continue;
                }
                if (write.getHoldCount() != writes || read.getHoldCount() != reads || write.isLost() && writes > 0
                        || read.isLost() && reads > 0) {
                    faults.add("after " + call + ": write " + write.getHoldCount() + "/" + writes + ", read "
                            + read.getHoldCount() + "/" + reads);
                }
                sleep(200);
            }
            writerDone.countDown();
            return null;
        });
        sleep(200);
        for (int i = 0; i < 4; i++) {
            ReentrantDistributedLock read = (i % 2 == 0 ? mine : theirs).getReadWriteLock(name).readLock();
            readers.add(clients.pool().submit(() -> {
                read.lock();
                long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - writeEnded.get());
                try {
                    if (late > 1_000) {
                        faults.add("a reader in " + late + " ms after the last write release");
                    }
                    if (writing.get()) {
                        faults.add("a reader in with the write hold");
                    }
                    String field = read.currentHold().map(h -> h.ownerId()).orElse("?");
                    String inRedis = redis.commands().hget(hash(name), field + ":t");
                    if (!String.valueOf(read.fencingToken()).equals(inRedis) || read.getHoldCount() != 1) {
                        faults.add("a reader's token " + read.fencingToken() + ", Redis " + inRedis);
                    }
                    writerDone.await(10, TimeUnit.SECONDS);
                    return read.fencingToken();
                }
                finally {
                    read.unlock();
                }
            }));
        }
        writer.get(20, TimeUnit.SECONDS);
        for (Future<Long> reader : readers) {
            assertThat(reader.get(10, TimeUnit.SECONDS)).isPositive();
        }
        assertThat(faults).isEmpty();
        assertThat(mine.heldLocks()).isEmpty();
        assertThat(theirs.heldLocks()).isEmpty();
        assertThat(redis.commands().exists(hash(name))).isZero();
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
