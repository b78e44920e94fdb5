package io.github.relock.core.turns;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.Contenders;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Subscribers;
import io.github.relock.test.RedisServerExtension;

/**
 * Odd inputs against turns: client names that start with the turn messages' '+' and '-' (and digits), close()
 * from inside a future callback, and an async wait cancelled while in line.
 */
@Timeout(60)
@Tag("jdk-independent")
class TurnsEdgeCasesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final Contenders contenders = new Contenders(redis);

    /** In the order made; {@link Contenders} closes them after each test. */
    final List<RedisLockClient> clients = new ArrayList<>();

    private RedisLockClient client(String name) {
        RedisLockClient.Builder builder = RedisLockClient.builder(redis.newConnectionFactory());
        if (name != null) {
            builder.clientId(name);
        }
        RedisLockClient client = contenders.add(builder.build());
        clients.add(client);
        return client;
    }

    /**
     * Client ids starting with '+' or '-' make owner ids like "-m-ab12:57", whose release announcement looks like a
     * '-' turn message ("-" + line + lease digits). Every lock() must come back promptly (a lost wake-up costs the
     * holder's 30 s watchdog lease), never two inside, and nothing left in Redis.
     */
    @Test
    void clientNamesStartingWithTurnMarkers() throws Exception {
        String name = "bk4:odd-names";
        String[] names = {"+", "-", "+p", "-m", "-1", "--", null};
        for (String n : names) {
            client(n);
        }
        AtomicInteger inside = new AtomicInteger();
        AtomicLong worstMillis = new AtomicLong();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (RedisLockClient client : clients) {
            for (int t = 0; t < 2; t++) {
                Thread worker = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    ReentrantDistributedLock lock = client.getLock(name);
                    for (int round = 0; round < 25; round++) {
                        try {
                            long start = System.nanoTime();
                            boolean got = round % 3 == 0 ? lock.tryLock(random.nextInt(1, 20), TimeUnit.MILLISECONDS)
                                    : lock.tryLock(20, TimeUnit.SECONDS);
                            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                            worstMillis.accumulateAndGet(took, Math::max);
                            if (!got) {
                                if (round % 3 != 0) {
                                    problems.add(client.getClientId() + " waited " + took + " ms in vain");
                                }
                                continue;
                            }
                            if (inside.incrementAndGet() != 1) {
                                problems.add("two inside");
                            }
                            Thread.sleep(random.nextInt(2));
                            inside.decrementAndGet();
                            lock.unlock();
                        }
                        catch (Exception ex) {
                            problems.add(ex.toString());
                        }
                    }
                }, "worker-" + client.getClientId());
                worker.start();
                workers.add(worker);
            }
        }
        for (Thread worker : workers) {
            worker.join(45_000);
            assertThat(worker.isAlive()).as("%s stalled", worker.getName()).isFalse();
        }
        System.out.println("odd names: worst wait " + worstMillis.get() + " ms");
        assertThat(problems).isEmpty();
        // 14 threads with ~1 ms critical sections: a wait of seconds is a lost wake-up
        assertThat(worstMillis.get()).as("worst wait").isLessThan(5_000);
        Thread.sleep(200);
        String key = clients.get(0).redisKeys(name).lock();
        assertThat(redis.commands().exists(key, key + ":turn")).isZero();
        assertThat(Subscribers.onceIdle(redis.commands(), clients.get(0).redisKeys(name).releaseChannel())).isZero();
    }

    /**
     * close() from a future callback (on a thread neither the driver's nor the client's) must neither hang nor leave
     * the client's threads behind, and a thread of the same client waiting for another lock must hear of it at once.
     */
    @Test
    void closeInsideAFutureCallback() throws Exception {
        RedisLockClient other = client("other");
        RedisLockClient closing = client("closing");
        ReentrantDistributedLock busy = other.getLock("bk4:busy");
        busy.lock();
        AtomicReference<Throwable> waiterSaw = new AtomicReference<>();
        CountDownLatch waiterDone = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                closing.getLock("bk4:busy").tryLock(40, TimeUnit.SECONDS);
            }
            catch (Throwable ex) {
                waiterSaw.set(ex);
            }
            waiterDone.countDown();
        });
        waiter.start();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockOwner waiting = closing.newOwner();
            pending.add(i == 0 ? closing.getLock("bk4:busy", waiting).lockAsync(waiting)
                    : closing.getLock("bk4:busy", waiting).tryLockAsync(Duration.ofSeconds(40), Duration.ofSeconds(5),
                            waiting));
        }
        Thread.sleep(300);
        LockOwner owner = closing.newOwner();
        AtomicLong closeMillis = new AtomicLong(-1);
        AtomicReference<String> closedOn = new AtomicReference<>();
        ReentrantDistributedLock brief = other.getLock("bk4:brief");
        brief.lock(); // freed below, so that the async wait completes when a release is announced
        CompletableFuture<Void> closed = closing.getLock("bk4:brief", owner)
                .tryLockAsync(Duration.ofSeconds(10), null, owner).thenAccept(got -> {
                    closedOn.set(Thread.currentThread().getName());
                    long start = System.nanoTime();
                    closing.close();
                    closeMillis.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                });
        Thread.sleep(200);
        brief.unlock();
        closed.get(10, TimeUnit.SECONDS);
        assertThat(closedOn.get()).doesNotStartWith("lettuce-").doesNotContain(closing.getClientId());
        System.out.println("close() on " + closedOn.get() + " took " + closeMillis.get() + " ms");
        assertThat(closeMillis.get()).isBetween(0L, 2_000L);
        assertThat(waiterDone.await(3, TimeUnit.SECONDS)).as("the other waiter of the closed client").isTrue();
        assertThat(waiterSaw.get()).isInstanceOf(IllegalStateException.class);
        for (CompletableFuture<?> future : pending) {
            // async waits of the closed client end too, with an error
            assertThat(future).failsWithin(Duration.ofSeconds(3));
        }
        Thread.sleep(1_000);
        String id = closing.getClientId();
        List<String> alive = new ArrayList<>();
        Thread.getAllStackTraces().keySet().forEach(t -> {
            if (t.getName().contains(id)) {
                alive.add(t.getName());
            }
        });
        assertThat(alive).as("threads of the closed client").isEmpty();
        busy.unlock();
    }

    /**
     * An async wait cancelled while its client is in the line must take the client out of it: otherwise the next
     * release keeps the lock 50 ms for nobody, and a tryLock() of a third client finds a free lock busy.
     */
    @Test
    void cancelledAsyncWaitLeavesTheLine() throws Exception {
        String name = "bk4:cancel-line";
        RedisLockClient a = client("a");
        RedisLockClient b = client("b");
        RedisLockClient c = client("c");
        ReentrantDistributedLock held = a.getLock(name);
        held.lock();
        LockOwner owner = b.newOwner();
        CompletableFuture<Void> waiting = b.getLock(name, owner).lockAsync(owner);
        String turnKey = a.redisKeys(name).lock() + ":turn";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (redis.commands().get(turnKey) == null && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(redis.commands().get(turnKey)).startsWith(b.getClientId() + ":");
        assertThat(waiting.cancel(false)).isTrue();
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (redis.commands().get(turnKey) != null && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(redis.commands().get(turnKey)).as("line after the cancel").isNull();
        held.unlock();
        assertThat(c.getLock(name).tryLock()).as("free, and kept for nobody").isTrue();
        c.getLock(name).unlock();
        assertThat(Subscribers.onceIdle(redis.commands(), a.redisKeys(name).releaseChannel())).isZero();
    }
}
