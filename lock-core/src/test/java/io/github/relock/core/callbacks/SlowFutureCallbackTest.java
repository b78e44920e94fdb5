package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * A slow callback that a user chains on one lock's asynchronous result (work done in {@code thenAccept}, which runs
 * where the result completed) does not cost another lock of the client its lease: the watchdog keeps renewing it,
 * so no other process can take it meanwhile.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class SlowFutureCallbackTest {

    @Test
    void aSlowCallbackOnOneLockDoesNotCostAnotherItsLease() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory())
                        .watchdogTimeout(Duration.ofMillis(900)).build();
                RedisLockClient rival = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock kept = client.getLock("slow:kept");
            kept.lock(); // the watchdog renews it every 300 ms
            LockOwner blocker = client.newOwner();
            LockOwner owner = client.newOwner();
            ReentrantDistributedLock other = client.getLock("slow:other");
            other.lockAsync(blocker).get(5, TimeUnit.SECONDS);
            CompletableFuture<Void> callbackDone = new CompletableFuture<>();
            other.tryLockAsync(Duration.ofSeconds(10), Duration.ofSeconds(30), owner).thenAccept(got -> {
                try {
                    Thread.sleep(3_000); // the user's work, in the callback
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                finally {
                    callbackDone.complete(null);
                }
            });
            Thread.sleep(100);
            other.unlockAsync(blocker).get(5, TimeUnit.SECONDS); // the attempt above completes on the driver's thread
            Thread.sleep(1_800); // twice the watchdog timeout, while the callback works
            boolean rivalGotIt = rival.getLock("slow:kept").tryLock();
            callbackDone.get(10, TimeUnit.SECONDS);
            assertThat(rivalGotIt).as("another client took a lock this client's watchdog holds").isFalse();
            assertThat(kept.isHeldByCurrentThread()).isTrue();
            kept.unlock();
            other.unlockAsync(owner).get(5, TimeUnit.SECONDS);
        }
    }
}
