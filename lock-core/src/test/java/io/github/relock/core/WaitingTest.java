package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.testing.Subscribers;
import io.github.relock.test.RedisServerExtension;

@Timeout(60)
class WaitingTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient holderClient;
    RedisLockClient waiterClient;
    ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() {
        holderClient = RedisLockClient.builder(redis.connectionFactory()).build();
        waiterClient = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        holderClient.close();
        waiterClient.close();
    }

    @Test
    void aReleaseWakesTheWaiterLongBeforeTheLeaseEnds() throws Exception {
        ReentrantDistributedLock held = holderClient.getLock("wake");
        held.lock(); // watchdog lease: 30 s, so only the release message can wake the waiter early
        Future<Long> waited = pool.submit(() -> {
            long start = System.nanoTime();
            ReentrantDistributedLock lock = waiterClient.getLock("wake");
            assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
            lock.unlock();
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        });
        Thread.sleep(300);
        held.unlock();
        long millis = waited.get(10, TimeUnit.SECONDS);
        System.out.printf("waiter acquired %d ms after it started waiting (released at ~300 ms)%n", millis);
        assertThat(millis).isLessThan(5_000);
    }

    @Test
    void aLostReleaseMessageCostsAtMostTheLease() throws Exception {
        ReentrantDistributedLock held = holderClient.getLock("silent");
        assertThat(held.tryLock(0, 700, TimeUnit.MILLISECONDS)).isTrue(); // never released: expires silently
        long start = System.nanoTime();
        ReentrantDistributedLock lock = waiterClient.getLock("silent");
        assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("waiter acquired an expired lock after %d ms (lease 700 ms)%n", millis);
        assertThat(millis).isBetween(500L, 3_000L);
        lock.unlock();
    }

    @Test
    void aReleaseWakesOneWaiterPerClientNotAll() throws Exception {
        ReentrantDistributedLock held = holderClient.getLock("herd");
        held.lock();
        int waiters = 6;
        AtomicInteger acquired = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            futures.add(pool.submit(() -> {
                ReentrantDistributedLock lock = waiterClient.getLock("herd");
                if (lock.tryLock(20, TimeUnit.SECONDS)) {
                    acquired.incrementAndGet();
                    release.await(); // keep it: the others must stay asleep, not retry
                    lock.unlock();
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> releaseListeners("herd") == 1);
        Thread.sleep(200); // let every waiter make its first attempts and fall asleep
        long before = evalshaCalls();
        held.unlock();
        await().atMost(Duration.ofSeconds(5)).until(() -> acquired.get() == 1);
        Thread.sleep(300);
        long attempts = evalshaCalls() - before - 1; // minus the release itself
        System.out.printf("acquire attempts after one release with %d waiters on one client: %d%n", waiters, attempts);
        assertThat(attempts).as("only the woken waiter tried").isLessThanOrEqualTo(2);
        release.countDown();
        for (Future<?> future : futures) {
            future.get(20, TimeUnit.SECONDS);
        }
        assertThat(acquired.get()).isEqualTo(waiters);
    }

    @Test
    void subscriptionsReturnToBaselineAfterTimeoutsAndInterrupts() throws Exception {
        ReentrantDistributedLock held = holderClient.getLock("sub");
        held.lock();
        assertThat(releaseListeners("sub")).isZero();
        List<Future<?>> timingOut = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            timingOut.add(pool.submit(() -> waiterClient.getLock("sub").tryLock(500, TimeUnit.MILLISECONDS)));
        }
        List<Future<?>> interrupted = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            interrupted.add(pool.submit(() -> waiterClient.getLock("sub").tryLock(30, TimeUnit.SECONDS)));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> releaseListeners("sub") == 1);
        for (Future<?> future : timingOut) {
            assertThat(future.get(5, TimeUnit.SECONDS)).isEqualTo(false);
        }
        interrupted.forEach(f -> f.cancel(true));
        await().atMost(Duration.ofSeconds(5)).until(() -> releaseListeners("sub") == 0);
        held.unlock();
    }

    @Test
    void anInterruptEndsTheWaitPromptlyAndLeavesNothingBehind() throws Exception {
        ReentrantDistributedLock held = holderClient.getLock("interrupt");
        held.lock();
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            java.util.concurrent.atomic.AtomicLong caughtAt = new java.util.concurrent.atomic.AtomicLong();
            Future<?> waiter = pool.submit(() -> {
                try {
                    waiterClient.getLock("interrupt").tryLock(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    caughtAt.set(System.nanoTime()); // after the wait left, subscription included
                }
                return null;
            });
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                    .until(() -> releaseListeners("interrupt") == 1);
            Thread.sleep(20); // asleep in the wait, not in the first attempt
            long sent = System.nanoTime();
            waiter.cancel(true);
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1)).until(() -> caughtAt.get() != 0);
            delays.add(TimeUnit.NANOSECONDS.toMillis(caughtAt.get() - sent));
            assertThat(Subscribers.onceIdle(redis.commands(), holderClient.redisKeys("interrupt").releaseChannel()))
                    .as("subscribers of the channel once the client let it go").isZero();
        }
        delays.sort(null);
        System.out.printf("interrupt to subscription gone: median %d ms, max %d ms%n", delays.get(5), delays.get(9));
        assertThat(delays.get(5)).as("median").isLessThan(50);
        assertThat(held.isHeldByCurrentThread()).isTrue();
        held.unlock();
    }

    @Test
    void closingTheClientReleasesItsWaiters() throws Exception {
        ReentrantDistributedLock held = holderClient.getLock("closing");
        held.lock();
        Future<Boolean> waiter = pool.submit(() -> waiterClient.getLock("closing").tryLock(30, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> releaseListeners("closing") == 1);
        waiterClient.close();
        assertThat(waiter).failsWithin(Duration.ofSeconds(3)).withThrowableThat()
                .havingRootCause().isInstanceOf(IllegalStateException.class).withMessageContaining("closed");
        held.unlock();
    }

    private long releaseListeners(String name) {
        String channel = holderClient.redisKeys(name).releaseChannel();
        Map<String, Long> counts = redis.commands().pubsubNumsub(channel);
        return counts.getOrDefault(channel, 0L);
    }

    private long evalshaCalls() {
        return CommandStats.calls(redis.commands(), "evalsha");
    }
}
