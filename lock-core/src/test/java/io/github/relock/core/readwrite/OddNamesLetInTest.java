package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Subscribers;
import io.github.relock.test.RedisServerExtension;

/**
 * Read-write locks whose names hold braces, a percent sign, wide characters or a thousand characters, or look like
 * another lock's keys ({@code x}:rw} beside {@code x}), let their readers in from a write release each on its own:
 * every reader holds the token its own lock's hash records, while plain locks of the same names (and fair locks of
 * like names) are held, and nothing is left once all are released.
 */
@Tag("jdk-independent")
@Timeout(60)
class OddNamesLetInTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    private static final List<String> NAMES = List.of("x", "x}:rw", "x}", "{x}", "x:rw", "%7D{}%", "größe 文書 🔒",
            "n".repeat(1_000), "x}:rw:released:readers");

    @Test
    void readersOfOddlyNamedLocksAreLetInEachByItsOwnRelease() throws Exception {
        RedisLockClient writers = clients.client("writers", Duration.ofSeconds(30));
        RedisLockClient readers = clients.client("readers", Duration.ofSeconds(30));
        List<ReentrantDistributedLock> others = new ArrayList<>();
        for (String name : NAMES) {
            others.add(readers.getLock(name));
            others.add(writers.getFairLock("fair " + name)); // a fair and a plain lock of one name refuse each other
        }
        for (ReentrantDistributedLock other : others) {
            assertThat(other.tryLock(1, TimeUnit.SECONDS)).as(other.getName()).isTrue();
        }
        List<ReentrantDistributedLock> writes = new ArrayList<>();
        for (String name : NAMES) {
            ReentrantDistributedLock write = writers.getReadWriteLock(name).writeLock();
            write.lock();
            writes.add(write);
        }
        CountDownLatch done = new CountDownLatch(1);
        List<Future<String>> waiting = new ArrayList<>();
        for (String name : NAMES) {
            ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
            waiting.add(clients.pool().submit(() -> {
                read.lock();
                try {
                    String field = read.currentHold().map(h -> h.ownerId()).orElse("?");
                    String inRedis = redis.commands().hget(readers.redisKeys(name).lock() + ":rw", field + ":t");
                    done.await(20, TimeUnit.SECONDS);
                    return read.fencingToken() + " " + inRedis + " " + read.getHoldCount();
                }
                finally {
                    read.unlock();
                }
            }));
        }
        Thread.sleep(500);
        for (int i = 0; i < NAMES.size(); i++) {
            assertThat(waiting.get(i)).as(NAMES.get(i) + ": a reader in with the write hold").isNotDone();
            writes.get(i).unlock();
            Thread.sleep(100);
            for (int j = i + 1; j < NAMES.size(); j++) {
                assertThat(waiting.get(j)).as(NAMES.get(j) + ": let in by the release of " + NAMES.get(i))
                        .isNotDone();
            }
        }
        done.countDown();
        for (int i = 0; i < NAMES.size(); i++) {
            String[] seen = waiting.get(i).get(10, TimeUnit.SECONDS).split(" ");
            assertThat(seen[0]).as(NAMES.get(i)).isEqualTo(seen[1]);
            assertThat(seen[2]).isEqualTo("1");
        }
        for (ReentrantDistributedLock other : others) {
            assertThat(other.isHeldByCurrentThread()).as(other.getName()).isTrue();
            other.unlock();
        }
        assertThat(readers.heldLocks()).isEmpty();
        assertThat(writers.heldLocks()).isEmpty();
        Thread.sleep(200);
        assertThat(redis.commands().keys("lock:*")).as("left").allMatch(k -> k.endsWith(":fence")
                || k.endsWith(":ended"));
        assertThat(Subscribers.channelsOnceIdle(redis.commands(), c -> c.startsWith("lock:__relock_client__:")))
                .allMatch(c -> c.startsWith("lock:__relock_client__:"));
    }

}
