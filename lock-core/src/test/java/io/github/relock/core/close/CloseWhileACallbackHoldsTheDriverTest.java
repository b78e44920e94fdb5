package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServer;

/**
 * close() while a user's callback on an asynchronous result works on the driver's thread (where that result
 * completed) returns promptly and leaves no thread of the client, even though the callback goes on.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CloseWhileACallbackHoldsTheDriverTest {

    @Test
    void closeReturnsPromptlyWhileACallbackHoldsTheDriversThread() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build();
            String id = client.getClientId();
            LockOwner blocker = client.newOwner();
            LockOwner owner = client.newOwner();
            ReentrantDistributedLock lock = client.getLock("cdrv");
            ReentrantDistributedLock watched = client.getLock("cdrv:watched");
            watched.lock(); // a watchdog hold: the scheduler renews it
            lock.lockAsync(blocker).get(5, TimeUnit.SECONDS);
            CountDownLatch inCallback = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            lock.tryLockAsync(Duration.ofSeconds(10), Duration.ofSeconds(30), owner).thenAccept(got -> {
                inCallback.countDown();
                try {
                    letGo.await(8, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            lock.unlockAsync(blocker).get(5, TimeUnit.SECONDS);
            assertThat(inCallback.await(5, TimeUnit.SECONDS)).isTrue();
            long start = System.nanoTime();
            client.close();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            letGo.countDown();
            assertThat(millis).as("close() took").isLessThan(3_000);
            assertThat(Probe.relockThreads(id)).as(String.join("\n", Probe.relockThreadStacks(id))).isEmpty();
        }
    }
}
