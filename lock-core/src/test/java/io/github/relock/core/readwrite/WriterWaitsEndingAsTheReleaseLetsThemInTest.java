package io.github.relock.core.readwrite;

import static io.github.relock.core.readwrite.LetInClients.ownerOf;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A writer thread whose wait ends (its time runs out, or it is interrupted), or an owner's asynchronous wait that
 * is cancelled, just as the last release gives it the write hold either holds it, with the token Redis records for
 * it, or holds nothing in Redis: the hold it was given goes back, and the next writer gets in at once. The same thread, switching between writing and reading
 * at once afterwards, takes up no announcement of its earlier waits.
 */
@Tag("redis-version-independent")
@Tag("jdk-independent")
@Timeout(60)
class WriterWaitsEndingAsTheReleaseLetsThemInTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @Test
    void aWriterWhoseWaitRunsOutAsTheReleaseComesHoldsInRedisOrNotAtAll() throws Exception {
        String name = "given:timeout";
        String hash = LetInClients.hash(name);
        RedisLockClient holders = clients.client("holders", Duration.ofSeconds(30));
        RedisLockClient waiters = clients.client("waiters", Duration.ofSeconds(30));
        ReentrantDistributedLock held = holders.getReadWriteLock(name).writeLock();
        ReentrantDistributedLock write = waiters.getReadWriteLock(name).writeLock();
        ReentrantDistributedLock read = waiters.getReadWriteLock(name).readLock();
        int in = 0;
        int out = 0;
        for (int round = 0; round < 60; round++) {
            held.lock();
            long waitMillis = 60;
            CountDownLatch started = new CountDownLatch(1);
            Future<String> waiter = clients.pool().submit(() -> {
                started.countDown();
                if (!write.tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
                    // at once the other side, then the same side again: no earlier announcement counts
                    boolean reading = read.tryLock(0, TimeUnit.MILLISECONDS);
                    if (reading) {
                        read.unlock();
                    }
                    return "out";
                }
                try {
                    return "in " + write.fencingToken() + " " + redis.commands().hget(hash, ownerOf(waiters, name)
                            + ":w:t");
                }
                finally {
                    write.unlock();
                }
            });
            started.await();
            Thread.sleep(waitMillis - 6 + round % 12); // the release lands from 6 ms before to 6 ms after the end
            held.unlock();
            if (heldWithItsToken(waiter.get(10, TimeUnit.SECONDS), round)) {
                in++;
            }
            else {
                out++;
            }
            nothingLeftForTheNextWriter(held, hash, round);
        }
        System.out.printf("waits ending at the release: %d in, %d out%n", in, out);
    }

    @Test
    void aWriterInterruptedAsTheReleaseComesHoldsInRedisOrNotAtAll() throws Exception {
        String name = "given:interrupt";
        String hash = LetInClients.hash(name);
        RedisLockClient holders = clients.client("holders", Duration.ofSeconds(30));
        RedisLockClient waiters = clients.client("waiters", Duration.ofSeconds(30));
        ReentrantDistributedLock held = holders.getReadWriteLock(name).writeLock();
        ReentrantDistributedLock write = waiters.getReadWriteLock(name).writeLock();
        int in = 0;
        int out = 0;
        for (int round = 0; round < 60; round++) {
            held.lock();
            CountDownLatch started = new CountDownLatch(1);
            Thread[] thread = new Thread[1];
            java.util.concurrent.atomic.AtomicBoolean sent = new java.util.concurrent.atomic.AtomicBoolean();
            Future<String> waiter = clients.pool().submit(() -> {
                thread[0] = Thread.currentThread();
                started.countDown();
                try {
                    write.lockInterruptibly();
                }
                catch (InterruptedException e) {
                    return "out";
                }
                try {
                    while (!sent.get()) {
                        Thread.onSpinWait();
                    }
                    Thread.interrupted(); // the interrupt came after the lock: not this test's concern
                    return "in " + write.fencingToken() + " " + redis.commands().hget(hash, ownerOf(waiters, name)
                            + ":w:t");
                }
                finally {
                    write.unlock();
                }
            });
            started.await();
            Thread.sleep(40);
            held.unlock();
            busyMicros((round % 12) * 500L); // the interrupt lands from 0 to 6 ms after the release
            thread[0].interrupt();
            sent.set(true);
            if (heldWithItsToken(waiter.get(10, TimeUnit.SECONDS), round)) {
                in++;
            }
            else {
                out++;
            }
            nothingLeftForTheNextWriter(held, hash, round);
        }
        System.out.printf("interrupts at the release: %d in, %d out%n", in, out);
    }

    @Test
    void anOwnerCancellingItsWaitAsTheReleaseComesHoldsInRedisOrNotAtAll() throws Exception {
        String name = "given:cancel";
        String hash = LetInClients.hash(name);
        RedisLockClient holders = clients.client("holders", Duration.ofSeconds(30));
        RedisLockClient waiters = clients.client("waiters", Duration.ofSeconds(30));
        ReentrantDistributedLock held = holders.getReadWriteLock(name).writeLock();
        int in = 0;
        int out = 0;
        for (int round = 0; round < 60; round++) {
            held.lock();
            io.github.relock.core.LockOwner owner = waiters.newOwner();
            ReentrantDistributedLock write = waiters.getReadWriteLock(name, owner).writeLock();
            java.util.concurrent.CompletableFuture<Boolean> waiting = write.tryLockAsync(Duration.ofSeconds(5), null,
                    owner);
            for (int i = 0; i < 100 && redis.commands().hget(hash, owner.id() + ":w:i") == null; i++) {
                Thread.sleep(5);
            }
            held.unlock();
            busyMicros((round % 12) * 500L); // the cancel lands from 0 to 6 ms after the release
            boolean cancelled = waiting.cancel(true);
            if (cancelled) {
                out++;
            }
            else {
                in++;
                assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
                assertThat(redis.commands().hget(hash, owner.id() + ":w:t")).as("round " + round)
                        .isEqualTo(String.valueOf(write.fencingToken()));
                write.unlockAsync(owner).get(10, TimeUnit.SECONDS);
            }
            nothingLeftForTheNextWriter(held, hash, round);
        }
        System.out.printf("cancels at the release: %d in, %d out%n", in, out);
    }

    /** Whether the waiter got in ("in <its token> <the token in Redis>", else "out"), its token checked. */
    private static boolean heldWithItsToken(String result, int round) {
        if (result.equals("out")) {
            return false;
        }
        String[] parts = result.split(" ");
        assertThat(parts[2]).as("token in Redis, round " + round).isEqualTo(parts[1]);
        return true;
    }

    /** The next writer gets in at once, and then nothing of the round is left in Redis. */
    private static void nothingLeftForTheNextWriter(ReentrantDistributedLock held, String hash, int round)
            throws InterruptedException {
        assertThat(held.tryLock(1_000, TimeUnit.MILLISECONDS)).as("the next writer, round " + round).isTrue();
        held.unlock();
        assertThat(redis.commands().hgetall(hash)).as("left in Redis, round " + round).isEmpty();
    }

    private static void busyMicros(long micros) {
        long end = System.nanoTime() + micros * 1_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
