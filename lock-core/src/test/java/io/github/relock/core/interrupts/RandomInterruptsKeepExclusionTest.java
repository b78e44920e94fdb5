package io.github.relock.core.interrupts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * Threads of two clients (on thread-owned handles of each kind, or each on an explicit owner's handle) contend
 * with lockInterruptibly() and tryLock() while another thread interrupts them at
 * random moments, each using the JDK idiom {@code finally { if (isHeldByCurrentThread()) unlock(); }}: never two
 * inside, fencing tokens grow, the idiom never throws, and nothing is left locked at the end.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class RandomInterruptsKeepExclusionTest {

    @ParameterizedTest
    @ValueSource(strings = {"plain", "fair", "write", "owner"})
    void interruptsAtRandomMomentsKeepExclusionAndLeaveNothingLocked(String lockKind) throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient a = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient b = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            String name = "rint:" + lockKind;
            AtomicInteger inside = new AtomicInteger();
            AtomicLong lastToken = new AtomicLong();
            ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
            AtomicInteger sections = new AtomicInteger();
            AtomicInteger interruptedCalls = new AtomicInteger();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                RedisLockClient client = t % 2 == 0 ? a : b;
                int kind = t % 3;
                Thread worker = new Thread(() -> {
                    io.github.relock.core.LockOwner owner = client.newOwner();
                    while (System.nanoTime() < end) {
                        ReentrantDistributedLock lock = lockKind.equals("owner") ? client.getLock(name, owner)
                                : lockOf(client, name, lockKind);
                        try {
                            boolean got;
                            if (kind == 0) {
                                lock.lockInterruptibly();
                                got = true;
                            }
                            else if (kind == 1) {
                                got = lock.tryLock(200, TimeUnit.MILLISECONDS);
                            }
                            else {
                                got = lock.tryLock(300, 5_000, TimeUnit.MILLISECONDS);
                            }
                            if (got) {
                                int now = inside.incrementAndGet();
                                try {
                                    if (now != 1) {
                                        problems.add("two inside, kind " + kind);
                                    }
                                    long token = lock.fencingToken();
                                    if (token <= lastToken.get()) {
                                        problems.add("token " + token + " after " + lastToken.get());
                                    }
                                    lastToken.set(token);
                                    Thread.onSpinWait();
                                    sections.incrementAndGet();
                                }
                                finally {
                                    inside.decrementAndGet();
                                }
                            }
                        }
                        catch (InterruptedException ex) {
                            interruptedCalls.incrementAndGet();
                        }
                        catch (Throwable ex) {
                            problems.add("call: " + ex);
                        }
                        finally {
                            Thread.interrupted(); // the idiom below runs with the status cleared, as a pool would
                            try {
                                if (lock.isHeldByCurrentThread()) {
                                    lock.unlock();
                                }
                            }
                            catch (Throwable ex) {
                                problems.add("idiom: " + ex);
                            }
                        }
                    }
                });
                worker.setDaemon(true);
                worker.start();
                workers.add(worker);
            }
            Thread interrupter = new Thread(() -> {
                while (System.nanoTime() < end) {
                    workers.get(ThreadLocalRandom.current().nextInt(workers.size())).interrupt();
                    try {
                        Thread.sleep(0, ThreadLocalRandom.current().nextInt(1_000_000));
                        Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                    }
                    catch (InterruptedException ex) {
                        return;
                    }
                }
            });
            interrupter.setDaemon(true);
            interrupter.start();
            for (Thread worker : workers) {
                worker.join(60_000);
                assertThat(worker.isAlive()).as("worker stuck: " + java.util.Arrays.toString(worker.getStackTrace()))
                        .isFalse();
            }
            interrupter.join();
            assertThat(problems).as("sections %d, interrupted %d", sections.get(), interruptedCalls.get()).isEmpty();
            assertThat(sections.get()).isPositive();
            assertThat(server.commands().exists(lockOf(a, name, lockKind).getKey())).as("left locked").isZero();
            assertThat(a.heldLocks()).isEmpty();
            assertThat(b.heldLocks()).isEmpty();
        }
    }

    private static ReentrantDistributedLock lockOf(RedisLockClient client, String name, String kind) {
        return switch (kind) {
            case "fair" -> client.getFairLock(name);
            case "write" -> client.getReadWriteLock(name).writeLock();
            default -> client.getLock(name);
        };
    }
}
