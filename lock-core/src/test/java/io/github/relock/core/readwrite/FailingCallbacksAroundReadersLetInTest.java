package io.github.relock.core.readwrite;

import static io.github.relock.core.readwrite.LetInClients.hash;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Readers let in by a write release on a client whose lost-lock listeners throw an Error and a RuntimeException,
 * whose asynchronous read locks have callbacks that throw, and whose readers wait with their interrupt flag set: each
 * reader is let in with its flag kept, each hold taken up so that another client ends is reported lost to every
 * listener within its first 2 s, and the client's threads keep working round after round. The writer's client is a
 * second client given the same name, on a connection factory of its own.
 */
@Tag("redis-version-independent")
@Timeout(60)
class FailingCallbacksAroundReadersLetInTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @Test
    void listenersAndCallbacksThatThrowStopNothing() throws Exception {
        AtomicInteger told = new AtomicInteger();
        RedisLockClient readers = RedisLockClient.builder(redis.connectionFactory()).clientId("same")
                .watchdogTimeout(Duration.ofSeconds(30)).lockLostListener(event -> {
                    throw new AssertionError("a listener that throws an Error");
                }).lockLostListener(event -> {
                    throw new IllegalStateException("a listener that throws");
                }).lockLostListener(event -> told.incrementAndGet()).build();
        RedisLockClient writers = RedisLockClient.builder(redis.newConnectionFactory()).clientId("same")
                .watchdogTimeout(Duration.ofSeconds(30)).build();
        clients.add(readers);
        clients.add(writers);
        String name = "throwing";
        ReentrantDistributedLock write = writers.getReadWriteLock(name).writeLock();
        ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
        for (int round = 1; round <= 3; round++) {
            write.lock();
            CountDownLatch in = new CountDownLatch(1);
            CountDownLatch ended = new CountDownLatch(1);
            Future<String> reader = clients.pool().submit(() -> {
                Thread.currentThread().interrupt(); // lock() waits on through it, and leaves it set
                read.lock();
                boolean flagKept = Thread.interrupted();
                long token = read.fencingToken();
                in.countDown();
                ended.await(10, TimeUnit.SECONDS);
                boolean lost = read.isLost();
                try {
                    read.unlock();
                    return "released " + flagKept + " " + lost;
                }
                catch (LockLostException ex) {
                    return "lost " + flagKept + " " + lost + " " + (token > 0);
                }
            });
            Thread.sleep(300); // the reader waits
            write.unlock();
            assertThat(in.await(10, TimeUnit.SECONDS)).as("round " + round + ": the reader is let in").isTrue();
            // the other client ends the hold: the reader's early renewal, within its first 2 s, finds it gone
            assertThat(writers.getReadWriteLock(name).readLock().forceUnlock()).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (told.get() < round && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(told.get()).as("round " + round + ": listeners told").isEqualTo(round);
            ended.countDown();
            assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo("lost true true true");

            LockOwner owner = readers.newOwner();
            CompletableFuture<Void> callback = read.tryLockAsync(Duration.ofSeconds(2), null, owner).thenRun(() -> {
                throw new AssertionError("a callback that throws an Error");
            });
            assertThatThrownBy(() -> callback.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(AssertionError.class);
            read.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        }
        assertThat(write.tryLock(2, TimeUnit.SECONDS)).as("nothing held").isTrue();
        write.unlock();
        assertThat(readers.heldLocks()).isEmpty();
        assertThat(redis.commands().exists(hash(name))).isZero();
    }
}
