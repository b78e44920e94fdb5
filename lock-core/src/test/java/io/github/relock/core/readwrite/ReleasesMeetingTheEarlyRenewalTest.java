package io.github.relock.core.readwrite;

import static io.github.relock.core.readwrite.LetInClients.hash;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Readers let in by a write release give their holds back at any point of their first 2 s, so some releases meet
 * the early renewal of the hold they end: no listener hears of a loss, every release succeeds, and nothing is left.
 */
@Tag("jdk-independent")
@Tag("redis-version-independent")
@Timeout(60)
class ReleasesMeetingTheEarlyRenewalTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @Test
    void readersReleasingAsTheirHoldsAreRenewedEarlyAreNeverToldOfALoss() throws Exception {
        ConcurrentLinkedQueue<String> lost = new ConcurrentLinkedQueue<>();
        RedisLockClient readers = RedisLockClient.builder(redis.connectionFactory()).clientId("readers")
                .watchdogTimeout(Duration.ofSeconds(30)).lockLostListener(event -> lost.add(event.toString())).build();
        RedisLockClient writers = RedisLockClient.builder(redis.connectionFactory()).clientId("writers")
                .watchdogTimeout(Duration.ofSeconds(30)).build();
        clients.add(readers);
        clients.add(writers);
        String name = "early-renewal";
        ReentrantDistributedLock write = writers.getReadWriteLock(name).writeLock();
        ConcurrentLinkedQueue<String> faults = new ConcurrentLinkedQueue<>();
        for (int round = 0; round < 6; round++) {
            write.lock();
            List<Future<?>> waiting = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
                waiting.add(clients.pool().submit(() -> {
                    read.lock();
                    try {
                        Thread.sleep(ThreadLocalRandom.current().nextInt(1_600));
                    }
                    finally {
                        if (read.isLost()) {
                            faults.add("lost before its release");
                        }
                        read.unlock();
                    }
                    return null;
                }));
            }
            Thread.sleep(ThreadLocalRandom.current().nextInt(100, 2_000)); // any point of the readers' places
            write.unlock();
            for (Future<?> reader : waiting) {
                reader.get(10, TimeUnit.SECONDS);
            }
        }
        Thread.sleep(300);
        assertThat(faults).isEmpty();
        assertThat(lost).isEmpty();
        assertThat(readers.heldLocks()).isEmpty();
        assertThat(redis.commands().exists(hash(name))).isZero();
    }
}
