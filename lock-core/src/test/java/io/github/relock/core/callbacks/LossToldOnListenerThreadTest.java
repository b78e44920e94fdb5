package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A loss the owner's own call finds (isHeldByCurrentThread() after a lease ran out, unlock() of a lock that was
 * force-unlocked) is told to the listeners on the given executor, as the watchdog's losses are: never on the
 * owner's thread, so a listener that blocks does not hold up the owner's call.
 */
@Timeout(30)
@Tag("redis-version-independent")
class LossToldOnListenerThreadTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aLeaseEndSeenByTheOwnerIsToldOnTheGivenExecutor() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(task -> new Thread(task, "users-listener"));
        List<String> calledOn = new CopyOnWriteArrayList<>();
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).lockLostExecutor(executor)
                .lockLostListener(event -> calledOn.add(Thread.currentThread().getName())).build()) {
            ReentrantDistributedLock lock = client.getLock("told:lease-end");
            assertThat(lock.tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue();
            Thread.sleep(500);
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            await().atMost(Duration.ofSeconds(5)).until(() -> !calledOn.isEmpty());
            assertThat(calledOn).containsOnly("users-listener");
        }
        finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aBlockingListenerDoesNotHoldUpTheOwnersUnlock() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory())
                .lockLostListener(event -> {
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }).build();
                RedisLockClient other = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("told:force-unlocked");
            lock.lock();
            assertThat(other.getLock("told:force-unlocked").forceUnlock()).isTrue();
            long start = System.nanoTime();
            Throwable failure = catchThrowable(lock::unlock);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            release.countDown();
            assertThat(failure).isNotNull();
            assertThat(tookMillis).as("unlock() took %d ms", tookMillis).isLessThan(3_000);
        }
    }
}
