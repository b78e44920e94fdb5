package io.github.relock.core.turns;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.Contenders;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;
import io.github.relock.test.RedisServerExtension;

/**
 * Redis SIGSTOPped right after a release kept the lock for the first client in line, for far longer than the
 * 50 ms turn (the kept turn and the line's TTL run out while it is stopped, by Redis's own clock), and the first
 * client's waiter interrupted at that moment: the clients in line still get the lock one after another, soon after
 * Redis resumes, never two at once, and nothing is left in Redis. The holders have 30 s watchdog leases, so a
 * waiter that lost its wake-up would sleep for most of that.
 */
@Timeout(60)
@Tag("jdk-independent")
class PausedMidTurnTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final Contenders contenders = new Contenders(redis);

    /** In the order made; {@link Contenders} closes them after each test. */
    final List<RedisLockClient> clients = new ArrayList<>();

    @Test
    void pausedJustAfterTheReleaseThenResumed(RedisServer server) throws Exception {
        String name = "bk4:paused-turn";
        for (int i = 0; i < 4; i++) {
            clients.add(contenders.add(RedisLockClient.builder(redis.newConnectionFactory(Duration.ofSeconds(10)))
                    .clientId("p" + i).build()));
        }
        ReentrantDistributedLock held = clients.get(0).getLock(name);
        held.lock();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Long>> waiters = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 1; i < 4; i++) {
            RedisLockClient client = clients.get(i);
            CompletableFuture<Long> done = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                ReentrantDistributedLock lock = client.getLock(name);
                try {
                    boolean got = lock.tryLock(40, TimeUnit.SECONDS);
                    long at = System.nanoTime();
                    if (got) {
                        // taken on the turn even if interrupted meanwhile (the status is kept for the caller)
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        java.util.concurrent.locks.LockSupport.parkNanos(30_000_000L); // an interrupt cannot skip the unlock
                        inside.decrementAndGet();
                        lock.unlock();
                    }
                    done.complete(got ? at : -1L);
                }
                catch (InterruptedException ex) {
                    done.complete(-2L);
                }
                catch (Throwable ex) {
                    done.completeExceptionally(ex);
                }
            });
            thread.start();
            threads.add(thread);
            waiters.add(done);
            String turnKey = client.redisKeys(name).lock() + ":turn";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (true) {
                String line = redis.commands().get(turnKey);
                if (line != null && line.contains(client.getClientId())) {
                    break;
                }
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(2);
            }
        }
        Thread.sleep(200);
        held.unlock(); // kept for p1
        server.pause();
        threads.get(0).interrupt(); // p1's only waiter gives up while Redis is stopped
        Thread.sleep(1_500);
        long resumed = System.nanoTime();
        server.resume();
        List<Long> after = new ArrayList<>();
        String key0 = clients.get(0).redisKeys(name).lock();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
        while (System.nanoTime() < until && !waiters.stream().allMatch(CompletableFuture::isDone)) {
            Thread.sleep(100);
        }
        if (!waiters.stream().allMatch(CompletableFuture::isDone)) {
            System.out.println("stuck 6 s after resume: hash " + redis.commands().hgetall(key0) + " pttl "
                    + redis.commands().pttl(key0) + " line " + redis.commands().get(key0 + ":turn"));
            System.out.println("p1 outcome " + (waiters.get(0).isDone() ? waiters.get(0).join() : "pending")
                    + ", p1 client's held locks " + clients.get(1).heldLocks());
            for (int i = 0; i < 3; i++) {
                System.out.println("p" + (i + 1) + " done=" + waiters.get(i).isDone() + " "
                        + java.util.Arrays.toString(threads.get(i).getStackTrace()).replace(", ", "\n   "));
            }
        }
        for (CompletableFuture<Long> waiter : waiters) {
            long at = waiter.get(40, TimeUnit.SECONDS);
            after.add(at < 0 ? at : TimeUnit.NANOSECONDS.toMillis(at - resumed));
        }
        System.out.println("after resume (ms; -2 interrupted): " + after);
        assertThat(overlaps.get()).isZero();
        for (int i = 1; i < 3; i++) {
            assertThat(after.get(i)).as("p%d after resume", i + 1).isBetween(0L, 3_000L);
        }
        Thread.sleep(200);
        String key = clients.get(0).redisKeys(name).lock();
        assertThat(redis.commands().exists(key, key + ":turn")).isZero();
    }
}
