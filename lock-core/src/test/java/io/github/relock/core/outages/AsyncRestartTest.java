package io.github.relock.core.outages;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/** Asynchronous waits through a Redis restart that lost the lock take it soon after, not at the old lease's end. */
@Timeout(60)
@Tag("jdk-independent")
class AsyncRestartTest {

    /** Async waits through a restart that lost the lock: they take it soon after, not at the old lease's end. */
    @Test
    void asyncWaitersThroughARestartWithoutData() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            RedisLockClient holder = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(1)))
                    .build();
            RedisLockClient waiter = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(1)))
                    .build();
            try {
                holder.getLock("bk5:arestart").lock(); // 30 s watchdog lease
                ReentrantDistributedLock lock = waiter.getLock("bk5:arestart");
                List<CompletableFuture<Boolean>> futures = new ArrayList<>();
                List<LockOwner> owners = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    owners.add(waiter.newOwner());
                    futures.add(lock.tryLockAsync(Duration.ofSeconds(20), Duration.ofMillis(300), owners.get(i)));
                }
                Thread.sleep(500);
                server.kill();
                Thread.sleep(1_000);
                server.restart();
                long restarted = System.nanoTime();
                CompletableFuture.anyOf(futures.toArray(CompletableFuture[]::new)).get(25, TimeUnit.SECONDS);
                assertThat((System.nanoTime() - restarted) / 1_000_000).as("ms to the first async hold")
                        .isLessThan(5_000);
                for (CompletableFuture<Boolean> f : futures) {
                    assertThat(f.get(10, TimeUnit.SECONDS)).isTrue(); // 300 ms leases, one after another
                }
            }
            finally {
                holder.close();
                waiter.close();
            }
        }
    }
}
