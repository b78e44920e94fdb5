package io.github.relock.core.readwrite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Reader threads interrupted, or their client closed, just as a write release lets them in: each reader either
 * holds with the token Redis has for it or did not get the lock, and once they are done nothing is left in Redis,
 * and no subscription either.
 */
@Tag("redis-version-independent")
@Tag("jdk-independent")
@Timeout(60)
class ReadersStoppedAsTheyAreLetInTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @Test
    void readersInterruptedAroundTheReleaseHoldTheirOwnTokenOrLeaveNothing() throws Exception {
        for (int round = 0; round < 6; round++) {
            String name = "given:interrupted:" + round;
            String hash = LetInClients.hash(name);
            RedisLockClient readers = clients.client("readers " + round, Duration.ofSeconds(30));
            ReentrantDistributedLock write = clients.client("writer " + round, Duration.ofSeconds(30))
                    .getReadWriteLock(name).writeLock();
            write.lock();
            int count = 8;
            AtomicInteger held = new AtomicInteger();
            AtomicInteger interrupted = new AtomicInteger();
            java.util.Map<String, String> tokens = new java.util.concurrent.ConcurrentHashMap<>();
            CountDownLatch answered = new CountDownLatch(count);
            CountDownLatch checked = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Thread thread = new Thread(() -> {
                    ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
                    try {
                        read.lockInterruptibly();
                    }
                    catch (InterruptedException ex) {
                        interrupted.incrementAndGet();
                        answered.countDown();
                        return;
                    }
                    try {
                        Thread.interrupted(); // interrupted once it held: the checks below still run
                        held.incrementAndGet();
                        String field = readers.heldLocks().stream()
                                .filter(h -> Thread.currentThread().getName().equals(h.ownerThread()))
                                .findFirst().orElseThrow().ownerId();
                        tokens.put(field, String.valueOf(read.fencingToken()));
                        answered.countDown();
                        while (true) {
                            try {
                                checked.await(); // an interrupt that comes once it held ends nothing
                                break;
                            }
                            catch (InterruptedException late) {
                                // holds on until the check is done
                            }
                        }
                    }
                    finally {
                        read.unlock();
                    }
                }, "reader-" + round + "-" + i);
                thread.start();
                threads.add(thread);
            }
            clients.waitForPlaces(name, count);
            write.unlock();
            Thread.sleep(round % 3); // 0-2 ms after the release
            for (int i = 0; i < count; i += 2) {
                threads.get(i).interrupt();
            }
            assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();
            java.util.Map<String, String> inRedis = new java.util.HashMap<>();
            tokens.keySet().forEach(field -> inRedis.put(field, redis.commands().hget(hash, field + ":t")));
            checked.countDown();
            for (Thread thread : threads) {
                thread.join(10_000);
            }
            assertThat(tokens).as("round %d: each reader's token, here and in Redis", round).isEqualTo(inRedis);
            assertThat(held.get() + interrupted.get()).isEqualTo(count);
            System.out.printf("round %d: %d held, %d interrupted%n", round, held.get(), interrupted.get());
            Thread.sleep(300); // the give-backs of readers interrupted before they held
            assertThat(redis.commands().hgetall(hash)).as("round %d: left in Redis (%d held, %d interrupted)", round,
                    held.get(), interrupted.get()).isEmpty();
        }
    }

    @Test
    void readersWhoseClientClosesAsTheyAreLetInLeaveNothingOnceTheirPlacesWouldHaveEnded() throws Exception {
        String name = "given:closed";
        String hash = LetInClients.hash(name);
        // a reader whose attempt took its hold up just as the client closed keeps it for its lease: 1 s here
        RedisLockClient readers = clients.client("readers", Duration.ofSeconds(1));
        ReentrantDistributedLock write = clients.client("writer", Duration.ofSeconds(30)).getReadWriteLock(name)
                .writeLock();
        write.lock();
        int count = 6;
        AtomicInteger held = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Thread thread = new Thread(() -> {
                ReentrantDistributedLock read = readers.getReadWriteLock(name).readLock();
                try {
                    read.lock();
                    held.incrementAndGet();
                    read.unlock();
                }
                catch (RuntimeException closed) {
                    // the client closed under it
                }
            });
            thread.start();
            threads.add(thread);
        }
        clients.waitForPlaces(name, count);
        write.unlock();
        readers.close();
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        // holds given and never taken up end with the places they replaced, 2 s at most after their last attempt
        // (the hash itself lives on with the writer's longer lease: the scripts skip what has ended in it)
        Thread.sleep(2_100);
        ReentrantDistributedLock next = clients.client("next writer", Duration.ofSeconds(30)).getReadWriteLock(name)
                .writeLock();
        assertThat(next.tryLock(0, TimeUnit.MILLISECONDS)).as("a writer gets in, no read hold left (%d held)",
                held.get()).isTrue();
        next.unlock();
        assertThat(redis.commands().exists(hash)).as("left in Redis").isZero();
        assertThat(redis.commands().pubsubChannels()).as("subscriptions left").isEmpty();
    }

}
