package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockLostEvent;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;
import io.github.relock.test.RedisServerExtension;

/**
 * A reader let in by a write release holds for its place's 2 s only, until its lone early renewal lengthens that.
 * Redis paused from just after the release until past that first lease: the renewal goes unanswered, so the hold is
 * lost once its first lease ends, and a writer gets in when Redis resumes. The loss must be reported then, to the
 * lock-lost listeners too, as a round's lease-end check reports any other hold whose renewal goes unanswered; not
 * a watchdog interval (20 s here) later.
 */
@Tag("jdk-independent")
@Timeout(60)
class GivenReadHoldLossTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @Test
    void aReaderLetInWhoseEarlyRenewalGoesUnansweredIsReportedLostWhenItsFirstLeaseEnds(RedisServer server)
            throws Exception {
        CompletableFuture<Long> toldAt = new CompletableFuture<>();
        RedisLockClient readers = clients.add(clients.builder("readers", Duration.ofSeconds(60), Duration.ofSeconds(1))
                .lockLostListener((LockLostEvent event) -> toldAt.complete(System.nanoTime())).build());
        RedisLockClient writers = clients.client("writers", Duration.ofSeconds(60));
        ReentrantDistributedLock write = writers.getReadWriteLock("given:paused").writeLock();
        ReentrantDistributedLock read = readers.getReadWriteLock("given:paused").readLock();
        write.lock();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Future<Boolean> reader = clients.pool().submit(() -> {
            read.lock();
            holding.countDown();
            done.await();
            return read.isLost();
        });
        clients.waitForPlaces("given:paused", 1);

        write.unlock();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        server.pause(); // before the early renewal, at least a quarter of 2 s after the take-up
        long pausedAt = System.nanoTime();
        Thread.sleep(3_000);
        server.resume();
        Future<Long> writer = clients.pool().submit(() -> {
            write.lock();
            long at = System.nanoTime();
            write.unlock();
            return at;
        });
        long writerIn = writer.get(10, TimeUnit.SECONDS);
        Long told = null;
        try {
            told = toldAt.get(3, TimeUnit.SECONDS);
        }
        catch (java.util.concurrent.TimeoutException notYet) {
            // reported later, or never
        }
        done.countDown();

        assertThat(reader.get(10, TimeUnit.SECONDS)).as("the reader's hold lost").isTrue();
        assertThat(told).as("listeners told of the loss within 3 s of the writer getting in (%d ms after the pause)",
                TimeUnit.NANOSECONDS.toMillis(writerIn - pausedAt)).isNotNull();
        assertThat(told - writerIn).as("told at most 1 s after the writer got in").isLessThan(
                TimeUnit.SECONDS.toNanos(1));
    }

}
