package io.github.relock.core.turns;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Turns under churn: 4 clients x 3 threads on one plain lock, mixing lock(), tryLock() with no wait, short waits
 * that time out (leaving and rejoining the line), interrupts, and async waits that are cancelled. Never two
 * inside, tokens strictly increasing in the order holders got in, every worker done in time, and nothing of
 * the lock (hash, line) left in Redis once all are done.
 */
@Timeout(90)
@Tag("jdk-independent")
class TurnsChurnTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void tearDown() {
        clients.forEach(RedisLockClient::close);
    }

    @Test
    void neverTwoInsideNobodyStallsNothingLeftBehind() throws Exception {
        String name = "bk3:churn";
        for (int i = 0; i < 4; i++) {
            clients.add(RedisLockClient.builder(redis.newConnectionFactory()).build());
        }
        AtomicInteger inside = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong();
        AtomicInteger acquired = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (RedisLockClient client : clients) {
            for (int t = 0; t < 3; t++) {
                int kind = t;
                LockOwner owner = client.newOwner(); // one per thread: a shared owner re-enters, by design
                Thread worker = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int round = 0; round < 30; round++) {
                        try {
                            ReentrantDistributedLock lock = client.getLock(name);
                            boolean got;
                            boolean async = false;
                            int mode = (kind + round) % 5;
                            if (mode == 0) {
                                lock.lock();
                                got = true;
                            }
                            else if (mode == 1) {
                                got = lock.tryLock();
                            }
                            else if (mode == 2) {
                                got = lock.tryLock(random.nextInt(1, 40), TimeUnit.MILLISECONDS);
                            }
                            else if (mode == 3) {
                                CompletableFuture<Boolean> pending = lock.tryLockAsync(Duration.ofSeconds(10), null,
                                        owner);
                                if (random.nextBoolean()) {
                                    Thread.sleep(random.nextInt(5));
                                    pending.cancel(false);
                                }
                                got = pending.isCancelled() ? false : pending.get(20, TimeUnit.SECONDS);
                                async = true;
                            }
                            else {
                                got = lock.tryLock(10, TimeUnit.SECONDS);
                            }
                            if (!got) {
                                continue;
                            }
                            if (inside.incrementAndGet() != 1) {
                                problems.add("two inside");
                            }
                            long token = async ? lock.tryLockAsync(Duration.ZERO, null, owner).thenApply(x -> 0L)
                                    .get(5, TimeUnit.SECONDS) : lock.fencingToken();
                            if (async) {
                                lock.unlockAsync(owner).get(5, TimeUnit.SECONDS); // the probe re-entered
                                token = client.getLock(name, owner).fencingToken();
                            }
                            if (token <= lastToken.get()) {
                                problems.add("token " + token + " after " + lastToken.get());
                            }
                            lastToken.set(token);
                            acquired.incrementAndGet();
                            Thread.sleep(random.nextInt(3));
                            inside.decrementAndGet();
                            if (async) {
                                lock.unlockAsync(owner).get(5, TimeUnit.SECONDS);
                            }
                            else {
                                lock.unlock();
                            }
                        }
                        catch (java.util.concurrent.CancellationException ex) {
                            // cancelled async wait
                        }
                        catch (Exception ex) {
                            problems.add(ex.toString());
                        }
                    }
                });
                worker.start();
                workers.add(worker);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread worker : workers) {
            worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            assertThat(worker.isAlive()).as("a worker stalled; problems: %s", problems).isFalse();
        }
        System.out.println("churn: " + acquired.get() + " holds, problems " + problems);
        assertThat(problems).isEmpty();
        Thread.sleep(200);
        String key = clients.get(0).redisKeys(name).lock();
        assertThat(redis.commands().exists(key, key + ":turn")).as("hash or line left").isZero();
    }
}
