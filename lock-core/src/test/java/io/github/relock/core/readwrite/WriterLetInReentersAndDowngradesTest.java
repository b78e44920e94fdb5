package io.github.relock.core.readwrite;

import static io.github.relock.core.readwrite.LetInClients.ownerOf;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A writer thread that took its hold up from the last release's announcement re-enters it, with the watchdog or a
 * fixed lease, and takes a read hold inside it that outlives the write hold, as Redis records: Redis
 * keeps its holds, a writer waiting behind the read hold stays out until it ends, and nothing is left afterwards.
 */
@Timeout(60)
class WriterLetInReentersAndDowngradesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @Test
    void aWriterLetInReentersAndKeepsAReadHoldPastItsWriteHold() throws Exception {
        String name = "given:reenter";
        String hash = LetInClients.hash(name);
        RedisLockClient holders = clients.client("holders", Duration.ofSeconds(30));
        RedisLockClient waiters = clients.client("waiters", Duration.ofSeconds(30));
        ReentrantDistributedLock held = holders.getReadWriteLock(name).writeLock();
        held.lock();
        CountDownLatch readOnly = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Future<List<String>> writer = clients.pool().submit(() -> {
            List<String> seen = new ArrayList<>();
            ReentrantDistributedLock write = waiters.getReadWriteLock(name).writeLock();
            ReentrantDistributedLock read = waiters.getReadWriteLock(name).readLock();
            write.lock();
            String owner = ownerOf(waiters, name);
            seen.add("token " + write.fencingToken() + "/" + redis.commands().hget(hash, owner + ":w:t"));
            assertThat(write.tryLock(0, 5, TimeUnit.SECONDS)).isTrue(); // a fixed lease re-entry
            write.lock();
            // Redis keeps that the hold is there, not how often it was re-entered
            seen.add("count " + write.getHoldCount() + ", in Redis " + (redis.commands().hget(hash, owner + ":w") != null));
            read.lock();
            write.unlock();
            write.unlock();
            write.unlock();
            seen.add("write after unlock " + write.isHeldByCurrentThread() + "/" + redis.commands().hget(hash,
                    owner + ":w"));
            seen.add("read " + read.getHoldCount() + "/" + redis.commands().hget(hash, owner));
            readOnly.countDown();
            done.await();
            read.unlock();
            return seen;
        });
        for (int i = 0; i < 300 && redis.commands().hkeys(hash).stream().noneMatch(f -> f.endsWith(":w:i")); i++) {
            Thread.sleep(20);
        }
        held.unlock();
        assertThat(readOnly.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(held.tryLock(300, TimeUnit.MILLISECONDS)).as("a writer in beside the read hold").isFalse();
        Future<Long> next = clients.pool().submit(() -> {
            held.lock();
            try {
                return System.nanoTime();
            }
            finally {
                held.unlock();
            }
        });
        Thread.sleep(200);
        long released = System.nanoTime();
        done.countDown();
        long in = next.get(10, TimeUnit.SECONDS);

        List<String> seen = writer.get(10, TimeUnit.SECONDS);
        assertThat(seen.get(0).split(" ")[1].split("/")[1]).as(seen.get(0))
                .isEqualTo(seen.get(0).split(" ")[1].split("/")[0]);
        assertThat(seen.subList(1, 4)).containsExactly("count 3, in Redis true", "write after unlock false/null", "read 1/1");
        assertThat(in - released).as("the waiting writer let in after the read hold ended").isPositive();
        Thread.sleep(100);
        assertThat(redis.commands().hgetall(hash)).as("left in Redis").isEmpty();
    }

}
