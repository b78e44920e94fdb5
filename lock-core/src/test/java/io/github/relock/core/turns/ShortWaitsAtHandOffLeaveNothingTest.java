package io.github.relock.core.turns;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
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
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * Threads of one client whose waits are about as long as a hand-off takes (so a release hands the lock to a
 * waiter whose deadline is running out) with a long lease: never two inside ({@link ExclusionChecker}), and a waiter
 * that gave up holds nothing, so at the end nothing is locked (a lock handed to nobody would stay for its 60 s
 * lease).
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ShortWaitsAtHandOffLeaveNothingTest {

    @ParameterizedTest
    @ValueSource(strings = {"plain", "write"})
    void waitsEndingAtTheHandOffLeaveNothingLocked(String kind) throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            String name = "hoff:" + kind;
            ExclusionChecker checker = new ExclusionChecker(1);
            AtomicLong lastToken = new AtomicLong();
            ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Thread thread = new Thread(() -> {
                    while (System.nanoTime() < end) {
                        ReentrantDistributedLock lock = kind.equals("write")
                                ? client.getReadWriteLock(name).writeLock() : client.getLock(name);
                        try {
                            long waitMicros = ThreadLocalRandom.current().nextLong(3_000);
                            if (lock.tryLock(waitMicros, 60_000_000, TimeUnit.MICROSECONDS)) {
                                try {
                                    checker.criticalSection(0, () -> {
                                        long token = lock.fencingToken();
                                        if (token <= lastToken.get()) {
                                            problems.add("token " + token + " after " + lastToken.get());
                                        }
                                        lastToken.set(token);
                                        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(500_000));
                                    });
                                }
                                finally {
                                    lock.unlock();
                                }
                            }
                            else if (lock.getHoldCount() != 0) {
                                problems.add("gave up but holds " + lock.getHoldCount());
                            }
                        }
                        catch (Throwable ex) {
                            problems.add(ex.toString());
                        }
                    }
                });
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join(60_000);
                assertThat(thread.isAlive()).as("stuck: %s", java.util.Arrays.toString(thread.getStackTrace()))
                        .isFalse();
            }
            assertThat(checker.overlaps()).as("two holders inside at once, in %d sections", checker.sections())
                    .isZero();
            assertThat(checker.lostUpdates()).as("updates lost to a concurrent holder").isZero();
            assertThat(problems).as("sections %d", checker.sections()).isEmpty();
            assertThat(checker.sections()).isPositive();
            Thread.sleep(200);
            String key = kind.equals("write") ? client.getReadWriteLock(name).writeLock().getKey()
                    : client.getLock(name).getKey();
            assertThat(server.commands().exists(key)).as("left locked: %s, held %s", key, client.heldLocks()).isZero();
            assertThat(client.heldLocks()).isEmpty();
        }
    }
}
