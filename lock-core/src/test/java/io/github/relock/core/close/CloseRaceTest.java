package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * close() racing threads that keep entering waits (sync and async, on locks held by another client with a
 * long lease) and a second close() from another thread: every waiter ends within a second or two, never
 * at the holder's lease end; after either close() returns, no relock thread of the client is left.
 */
@Timeout(90)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CloseRaceTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void closeRacingNewWaiters() throws Exception {
        RedisCommands<String, String> server = redis.commands();
        LettuceConnectionFactory factory = redis.newConnectionFactory();
        RedisLockClient holder = RedisLockClient.builder(redis.newConnectionFactory()).build();
        for (int k = 0; k < 3; k++) {
            holder.getLock("bk5:race-close:" + k).lock(30, TimeUnit.SECONDS);
        }
        List<String> base = Probe.channels(server);
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        try {
            for (int round = 0; round < 15; round++) {
                RedisLockClient client = RedisLockClient.builder(factory).build();
                String id = client.getClientId();
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> threads = new ArrayList<>();
                ConcurrentLinkedQueue<CompletableFuture<Boolean>> asyncQueue = new ConcurrentLinkedQueue<>();
                for (int t = 0; t < 6; t++) {
                    int n = t;
                    Thread thread = new Thread(() -> {
                        while (!stop.get()) {
                            try {
                                ReentrantDistributedLock lock = client.getLock("bk5:race-close:" + (n % 3));
                                if (n % 2 == 0) {
                                    lock.tryLock(20, TimeUnit.SECONDS);
                                }
                                else {
                                    asyncQueue.add(lock.tryLockAsync(Duration.ofSeconds(20), null,
                                            client.newOwner()));
                                    Thread.sleep(1);
                                }
                            }
                            catch (IllegalStateException closed) {
                                return;
                            }
                            catch (InterruptedException ex) {
                                return;
                            }
                            catch (RuntimeException ex) {
                                problems.add(ex.toString());
                                return;
                            }
                        }
                    }, "bk5-race-" + t);
                    thread.setDaemon(true);
                    thread.start();
                    threads.add(thread);
                }
                Thread.sleep(100 + 37 * (round % 7));
                CountDownLatch go = new CountDownLatch(1);
                CompletableFuture<List<String>> second = CompletableFuture.supplyAsync(() -> {
                    try {
                        go.await();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    client.close();
                    return Probe.relockThreads(id);
                });
                go.countDown();
                client.close();
                List<String> afterFirst = Probe.relockThreads(id);
                List<String> afterSecond = second.get(5, TimeUnit.SECONDS);
                if (!afterFirst.isEmpty() || !afterSecond.isEmpty()) {
                    problems.add("round " + round + ": relock threads alive right after close(): " + afterFirst
                            + " / " + afterSecond + "; now: " + Probe.relockThreadStacks(id));
                }
                long t0 = System.nanoTime();
                for (Thread thread : threads) {
                    thread.join(3_000);
                    if (thread.isAlive()) {
                        StringBuilder stack = new StringBuilder();
                        for (StackTraceElement e : thread.getStackTrace()) {
                            stack.append("\n    ").append(e);
                        }
                        problems.add("round " + round + ": " + thread.getName() + " still waits " + stack);
                        stop.set(true);
                        thread.interrupt();
                    }
                }
                stop.set(true);
                for (CompletableFuture<Boolean> f : asyncQueue) {
                    if (!Probe.eventually(2_000, f::isDone)) {
                        problems.add("round " + round + ": async wait still pending");
                        break;
                    }
                    if (!f.isCompletedExceptionally() && f.getNow(null)) {
                        problems.add("round " + round + ": async wait acquired a held lock");
                    }
                }
                if ((System.nanoTime() - t0) > TimeUnit.SECONDS.toNanos(4)) {
                    problems.add("round " + round + ": waiters took " + (System.nanoTime() - t0) / 1_000_000
                            + " ms to end");
                }
                if (!Probe.eventually(2_000, () -> Probe.channels(server).equals(base))) {
                    problems.add("round " + round + ": channels " + Probe.channels(server));
                }
            }
            assertThat(problems).isEmpty();
        }
        finally {
            holder.close();
        }
    }
}
