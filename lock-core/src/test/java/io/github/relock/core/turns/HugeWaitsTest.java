package io.github.relock.core.turns;

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
 * Waits of the largest sizes the API accepts (Long.MAX_VALUE in any unit, a Duration of centuries) wait for the
 * release like any other, rather than give up at once or spin on an overflowed deadline.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class HugeWaitsTest {

    @Test
    void theLargestWaitsGetTheLockOnItsRelease() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient holderClient = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock held = holderClient.getLock("huge");
            held.lock(30, TimeUnit.SECONDS);
            CompletableFuture<Boolean> days = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    ReentrantDistributedLock lock = client.getLock("huge");
                    boolean got = lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS);
                    days.complete(got);
                    if (got) {
                        lock.unlock();
                    }
                }
                catch (Throwable ex) {
                    days.completeExceptionally(ex);
                }
            });
            waiter.start();
            LockOwner owner = client.newOwner();
            ReentrantDistributedLock shared = client.getLock("huge", owner);
            // Either waiter may be first at the release; each gives the lock back as soon as it has it, so the
            // other is not left waiting for a lease to run out.
            CompletableFuture<Boolean> centuries = shared
                    .tryLockAsync(Duration.ofDays(365L * 100_000_000), Duration.ofSeconds(10), owner)
                    .thenCompose(got -> got ? shared.unlockAsync(owner).thenApply(released -> true)
                            : CompletableFuture.completedFuture(false));
            Thread.sleep(500);
            assertThat(days).isNotDone();
            assertThat(centuries).isNotDone();
            held.unlock();
            assertThat(days.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(centuries.get(10, TimeUnit.SECONDS)).isTrue();
            waiter.join();
        }
    }
}
