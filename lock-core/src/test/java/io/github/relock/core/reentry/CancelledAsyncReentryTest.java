package io.github.relock.core.reentry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Asynchronous re-entries of one explicit owner, cancelled just as they are granted while threads of that owner
 * re-enter and release in a loop, never make the hold count drift. A cancelled grant is given back outside the
 * owner's turn, while the threads' re-entries and releases run inside it, and the count is kept in the client
 * with no Redis reply to resync it.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CancelledAsyncReentryTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
    }

    /** Three threads of one owner re-enter and release while async re-entries are cancelled. */
    @Test
    void cancelledAsyncReentriesNeverDriftTheDepth() throws Exception {
        run(3);
    }

    /**
     * One caller thread only; it cancels async re-entries and unlocks the ones that were granted.
     * The client's own async threads race each other (a grant given back vs the next attempt).
     */
    @Test
    void cancelledAsyncReentriesFromOneThreadNeverDriftTheDepth() throws Exception {
        run(0);
    }

    private void run(int spinnerCount) throws Exception {
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock("bk:async-race", owner);
        lock.lock(); // the outer level, held throughout
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] spinners = new Thread[spinnerCount];
        for (int t = 0; t < spinners.length; t++) {
            spinners[t] = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        lock.lock();
                        lock.unlock();
                    }
                }
                catch (Throwable ex) {
                    failure.compareAndSet(null, ex);
                }
            });
            spinners[t].start();
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
        int cancelled = 0;
        int rounds = 0;
        while (System.nanoTime() - end < 0 && failure.get() == null) {
            rounds++;
            CompletableFuture<Boolean> future = lock.tryLockAsync(Duration.ZERO, null, owner);
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 30_000));
            if (future.cancel(false)) {
                cancelled++;
            }
            else if (future.get(5, TimeUnit.SECONDS)) {
                lock.unlock();
            }
        }
        stop.set(true);
        for (Thread spinner : spinners) {
            spinner.join(10_000);
        }
        Thread.sleep(300); // let any grant that raced its cancel give itself back
        assertThat(failure.get()).as("a spinner failed").isNull();
        int depth = lock.getHoldCount();
        System.out.println("rounds=" + rounds + " cancelled=" + cancelled + " depth=" + depth);
        lock.unlock(); // the outermost level: must free the lock
        Thread.sleep(100);
        assertThat(redis.commands().exists(lock.getKey()))
                .as("the outermost unlock freed it (depth before it was %d, heldLocks %s)", depth, client.heldLocks())
                .isZero();
        assertThat(client.heldLocks()).isEmpty();
    }
}
