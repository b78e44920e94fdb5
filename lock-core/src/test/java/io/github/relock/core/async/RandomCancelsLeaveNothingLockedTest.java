package io.github.relock.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.ExclusionChecker;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * Asynchronous attempts cancelled at random moments, while blocking callers contend on the same lock: a cancelled
 * attempt keeps no hold (one granted as it was cancelled is given back), holders (blocking or asynchronous) never
 * overlap ({@link ExclusionChecker}), and nothing is left locked at the end.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class RandomCancelsLeaveNothingLockedTest {

    @ParameterizedTest
    @ValueSource(strings = {"plain", "fair", "write"})
    void cancelsAtRandomMomentsLeaveNothingLocked(String kind) throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient other = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            String name = "rcancel:" + kind;
            ExclusionChecker checker = new ExclusionChecker(1);
            AtomicLong lastToken = new AtomicLong();
            ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<ReentrantDistributedLock> cancelledAttempts = new ConcurrentLinkedQueue<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                RedisLockClient c = t % 2 == 0 ? client : other;
                threads.add(started(() -> {
                    while (System.nanoTime() < end) {
                        ReentrantDistributedLock lock = lockOf(c, name, kind, null);
                        try {
                            if (lock.tryLock(2, 10, TimeUnit.SECONDS)) {
                                try {
                                    checker.criticalSection(0, () -> {
                                        long token = lock.fencingToken();
                                        if (token <= lastToken.get()) {
                                            problems.add("token " + token + " after " + lastToken.get());
                                        }
                                        lastToken.set(token);
                                    });
                                }
                                finally {
                                    lock.unlock();
                                }
                            }
                        }
                        catch (Throwable ex) {
                            problems.add(ex.toString());
                        }
                    }
                }));
            }
            for (int t = 0; t < 2; t++) {
                RedisLockClient c = t == 0 ? client : other;
                threads.add(started(() -> {
                    while (System.nanoTime() < end) {
                        LockOwner owner = c.newOwner();
                        ReentrantDistributedLock lock = lockOf(c, name, kind, owner);
                        CompletableFuture<Boolean> attempt = lock.tryLockAsync(Duration.ofSeconds(1),
                                Duration.ofSeconds(10), owner);
                        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(3_000_000));
                        boolean cancelled = attempt.cancel(true);
                        try {
                            if (!cancelled && attempt.get(10, TimeUnit.SECONDS)) {
                                try {
                                    checker.criticalSection(0);
                                }
                                finally {
                                    lock.unlockAsync(owner).get(10, TimeUnit.SECONDS);
                                }
                            }
                            else if (cancelled) {
                                // a grant that raced the cancel is given back right after it lands, which may be
                                // after this line: it is checked once everything has settled, below
                                cancelledAttempts.add(lock);
                            }
                        }
                        catch (Throwable ex) {
                            problems.add("async: " + ex);
                        }
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join(60_000);
                assertThat(thread.isAlive()).as("stuck: " + java.util.Arrays.toString(thread.getStackTrace())).isFalse();
            }
            assertThat(checker.overlaps()).as("two holders inside at once, in %d sections", checker.sections())
                    .isZero();
            assertThat(checker.lostUpdates()).as("updates lost to a concurrent holder").isZero();
            assertThat(problems).as("sections " + checker.sections()).isEmpty();
            Thread.sleep(500);
            String key = lockOf(client, name, kind, null).getKey();
            assertThat(server.commands().exists(key)).as("left locked: " + key).isZero();
            assertThat(cancelledAttempts).as("cancelled attempts").isNotEmpty()
                    .allSatisfy(cancelled -> assertThat(cancelled.getHoldCount()).as(cancelled.toString()).isZero());
            assertThat(client.heldLocks()).isEmpty();
            assertThat(other.heldLocks()).isEmpty();
        }
    }

    private static ReentrantDistributedLock lockOf(RedisLockClient client, String name, String kind,
            LockOwner owner) {
        return switch (kind) {
            case "fair" -> owner == null ? client.getFairLock(name) : client.getFairLock(name, owner);
            case "write" -> (owner == null ? client.getReadWriteLock(name) : client.getReadWriteLock(name, owner))
                    .writeLock();
            default -> owner == null ? client.getLock(name) : client.getLock(name, owner);
        };
    }

    private static Thread started(Runnable body) {
        Thread thread = new Thread(body);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
