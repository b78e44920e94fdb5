package io.github.relock.core.exclusion;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Three clients, threads, explicit owners shared by two threads, async owners, nested levels and lease
 * lengthening re-entries, on one name: never two inside, tokens grow in the order holders got in, and every
 * worker finishes (a release that wakes nobody would stall a worker to the timeout).
 */
@Timeout(120)
@Tag("jdk-independent")
class MixedCallersExclusionTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<RedisLockClient> clients = new ArrayList<>();

    @BeforeEach
    void setUp() {
        for (int i = 0; i < 3; i++) {
            clients.add(RedisLockClient.builder(redis.connectionFactory()).build());
        }
    }

    @AfterEach
    void tearDown() {
        clients.forEach(RedisLockClient::close);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void neverTwoInsideAndEveryoneGetsThrough(boolean fair) throws Exception {
        String name = "bk2:contention:" + fair;
        AtomicInteger inside = new AtomicInteger();
        java.util.Set<String> who = java.util.concurrent.ConcurrentHashMap.newKeySet();
        AtomicLong last = new AtomicLong();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        int rounds = 25;
        List<Thread> workers = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(3 * 5);
        for (RedisLockClient client : clients) {
            LockOwner shared = client.newOwner();
            LockOwner async = client.newOwner();
            for (int t = 0; t < 5; t++) {
                int kind = t;
                workers.add(started(() -> {
                    try {
                        for (int i = 0; i < rounds; i++) {
                            ReentrantDistributedLock lock;
                            if (kind == 4) {
                                lock = fair ? client.getFairLock(name, async) : client.getLock(name, async);
                                lock.lockAsync(async).get(30, TimeUnit.SECONDS);
                            }
                            else if (kind >= 2) {
                                lock = fair ? client.getFairLock(name, shared) : client.getLock(name, shared);
                                lock.lock();
                            }
                            else {
                                lock = fair ? client.getFairLock(name) : client.getLock(name);
                                if (!lock.tryLock(30, 20, TimeUnit.SECONDS)) {
                                    problems.add("timed out");
                                    continue;
                                }
                            }
                            boolean sharedOwner = kind == 2 || kind == 3;
                            String me = clients.indexOf(client) + "/" + kind;
                            int now = inside.incrementAndGet();
                            who.add(me);
                            if (now != 1 && !sharedOwner) {
                                problems.add("two inside: " + now + " " + who + " me " + me);
                            }
                            long token;
                            try {
                                token = lock.fencingToken();
                            }
                            catch (RuntimeException ex) {
                                problems.add(me + " round " + i + ": " + ex + " hash "
                                        + redis.commands().hgetall(lock.getKey()) + " held " + client.heldLocks());
                                throw ex;
                            }
                            if (!sharedOwner) {
                                if (token <= last.get()) {
                                    problems.add("token " + token + " after " + last.get());
                                }
                                last.set(token);
                            }
                            // nested, and a re-entry that lengthens the lease (goes to Redis)
                            if (ThreadLocalRandom.current().nextBoolean()) {
                                if (kind == 4) {
                                    if (!lock.tryLockAsync(Duration.ZERO, Duration.ofSeconds(90), async).get()) {
                                        problems.add("async nested re-entry refused");
                                    }
                                    inside.decrementAndGet();
                                    lock.unlockAsync(async).get();
                                }
                                else {
                                    if (!lock.tryLock(0, 90, TimeUnit.SECONDS)) {
                                        problems.add("nested re-entry refused, kind " + kind);
                                    }
                                    inside.decrementAndGet();
                                    lock.unlock();
                                }
                            }
                            else {
                                inside.decrementAndGet();
                            }
                            who.remove(me);
                            if (kind == 4) {
                                lock.unlockAsync(async).get();
                            }
                            else {
                                lock.unlock();
                            }
                        }
                    }
                    catch (Throwable ex) {
                        problems.add(ex.toString());
                    }
                    finally {
                        done.countDown();
                    }
                }));
            }
        }
        boolean finished = done.await(100, TimeUnit.SECONDS);
        assertThat(problems).isEmpty();
        assertThat(finished).as("every worker got through").isTrue();
        assertThat(redis.commands().exists(clients.get(0).getLock(name).getKey())).isZero();
        for (RedisLockClient client : clients) {
            assertThat(client.heldLocks()).isEmpty();
        }
    }

    private static Thread started(Runnable body) {
        Thread thread = new Thread(body);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
