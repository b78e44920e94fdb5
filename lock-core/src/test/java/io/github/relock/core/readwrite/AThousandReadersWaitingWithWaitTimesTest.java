package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A thousand reader threads wait up to 3 s for one read-write lock that four writers take ten times each: every wait
 * returns within a second of its wait time, and most readers get in. Each attempt's script reads the whole hash
 * (every waiter's place), so with a thousand waiters Redis is busy for most of the run.
 */
@Tag("jdk-independent")
@Timeout(60)
class AThousandReadersWaitingWithWaitTimesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String NAME = "thousand:rw";

    private static final int READERS = 1_000;

    private final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void tearDown() {
        clients.forEach(RedisLockClient::close);
    }

    @Disabled("fails on a busy machine: in four runs, waits returned 1.1 s, 2.1 s, 0.2 s and 0 s past their 3 s, and "
            + "405, 0 (virtual threads), 870 and 1,000 readers got in: a wait's last attempt and its withdrawal each "
            + "queue behind a thousand scripts of 1 to 13 ms, and a reader whose attempt comes after its 2 s place "
            + "ended loses its turn to writers that came after it")
    @Test
    void everyWaitReturnsWithinASecondOfItsWaitTimeAndMostReadersGetIn() throws Exception {
        for (String id : new String[] { "thousand-one", "thousand-two" }) {
            clients.add(RedisLockClient.builder(redis.connectionFactory()).clientId(id)
                    .watchdogTimeout(Duration.ofSeconds(5)).build());
        }
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        AtomicLong overshoot = new AtomicLong();
        ConcurrentLinkedQueue<String> faults = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < READERS + 4; i++) {
            boolean writer = i % (READERS / 4 + 1) == 0;
            ReentrantDistributedLock lock = writer ? clients.get(i % 2).getReadWriteLock(NAME).writeLock()
                    : clients.get(i % 2).getReadWriteLock(NAME).readLock();
            Thread thread = new Thread(() -> {
                for (int round = 0; round < (writer ? 10 : 1); round++) {
                    long asked = System.nanoTime();
                    boolean got;
                    try {
                        got = lock.tryLock(3, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        return;
                    }
                    overshoot.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked) - 3_000,
                            Math::max);
                    if (!got) {
                        continue;
                    }
                    try {
                        int inside = (writer ? writers : readers).incrementAndGet();
                        if (writer ? inside > 1 || readers.get() > 0 : writers.get() > 0) {
                            faults.add("a " + (writer ? "writer" : "reader") + " not alone");
                        }
                        Thread.sleep(writer ? 20 : 5);
                        if (!writer) {
                            reads.incrementAndGet();
                        }
                    }
                    catch (InterruptedException ex) {
                        return;
                    }
                    finally {
                        (writer ? writers : readers).decrementAndGet();
                        lock.unlock();
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(50));
        }
        System.out.printf("a thousand readers: %d got in, the longest wait %d ms past its wait time%n", reads.get(),
                overshoot.get());
        assertThat(faults).isEmpty();
        assertThat(overshoot.get()).as("ms past the wait time").isLessThan(1_000);
        assertThat(reads.get()).as("readers in").isGreaterThan(READERS / 2);
        assertThat(redis.commands().exists("lock:{" + NAME + "}:rw")).isZero();
    }
}
