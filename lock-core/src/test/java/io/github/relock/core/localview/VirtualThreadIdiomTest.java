package io.github.relock.core.localview;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.MultiLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * On virtual threads (JDK 21+), the JDK idiom {@code finally { if (isHeldByCurrentThread()) unlock(); }} frees
 * every lock, plain and multi, of an executor shut down with {@code shutdownNow()} while the bodies run, and an
 * interrupted virtual thread's {@code lock()} acquires and keeps its interrupt status.
 */
@Timeout(60)
@EnabledForJreRange(minVersion = 21)
class VirtualThreadIdiomTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.newConnectionFactory()).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void theIdiomFreesEveryLockOfAVirtualThreadExecutorShutDownNow() throws Exception {
        ExecutorService pool = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
                .invoke(null);
        int tasks = 60;
        CountDownLatch inBody = new CountDownLatch(tasks);
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger keptStatus = new AtomicInteger();
        for (int i = 0; i < tasks; i++) {
            int n = i;
            pool.execute(() -> {
                java.util.concurrent.locks.Lock lock = n % 3 == 0
                        ? client.getMultiLock("vt-m" + n, "vt-m" + n + ":2")
                        : client.getLock("vt-" + n);
                lock.lock();
                try {
                    inBody.countDown();
                    while (!Thread.currentThread().isInterrupted()) {
                        LockSupport.park();
                    }
                    lock.lock(); // an interrupted thread's lock() acquires, keeping the status
                    if (Thread.currentThread().isInterrupted()) {
                        keptStatus.incrementAndGet();
                    }
                    lock.unlock();
                }
                catch (Throwable ex) {
                    failures.incrementAndGet();
                }
                finally {
                    try {
                        boolean held = lock instanceof MultiLock multi ? multi.isHeldByCurrentThread()
                                : ((ReentrantDistributedLock) lock).isHeldByCurrentThread();
                        if (held) {
                            lock.unlock();
                        }
                    }
                    catch (Throwable ex) {
                        failures.incrementAndGet();
                    }
                }
            });
        }
        assertThat(inBody.await(20, TimeUnit.SECONDS)).isTrue();
        pool.shutdownNow();
        assertThat(pool.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        List<String> stillLocked = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            String name = i % 3 == 0 ? "vt-m" + i : "vt-" + i;
            if (other.getLock(name).isLocked()) {
                stillLocked.add(name);
            }
        }
        System.out.printf("virtual threads: failures %d, kept status %d of %d, still locked %s%n", failures.get(),
                keptStatus.get(), tasks, stillLocked);
        assertThat(failures.get()).isZero();
        assertThat(keptStatus.get()).isEqualTo(tasks);
        assertThat(stillLocked).isEmpty();
        assertThat(client.heldLocks()).isEmpty();
    }
}
