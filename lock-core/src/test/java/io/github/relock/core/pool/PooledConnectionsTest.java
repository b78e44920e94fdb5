package io.github.relock.core.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * A client on a pooled factory whose pool holds a single connection (no shared native connection): every call
 * borrows it and gives it back, so renewal rounds of several batches, and lock calls made meanwhile, keep going.
 */
@Timeout(60)
@Tag("redis-version-independent")
class PooledConnectionsTest {

    /** More holds than one renewal call takes, so that a round sends two batches. */
    private static final int HOLDS = 300;

    @Test
    void renewalRoundsOfSeveralBatchesKeepGoingOnAPoolOfOne() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            LettuceConnectionFactory factory = PooledFactories.pooled(server, 1, null);
            RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(1)).build();
            try {
                List<ReentrantDistributedLock> locks = new ArrayList<>();
                for (int i = 0; i < HOLDS; i++) {
                    ReentrantDistributedLock lock = client.getLock("pool:one:" + i);
                    lock.lock();
                    locks.add(lock);
                }
                Thread.sleep(3_000); // several watchdog leases: only renewals keep the holds
                for (ReentrantDistributedLock lock : locks) {
                    assertThat(lock.isHeldByCurrentThread()).as(lock.getName()).isTrue();
                }
                assertThat(server.commands().pttl("pool:one:0")).isNotNull();
                CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
                    ReentrantDistributedLock lock = client.getLock("pool:one:other");
                    boolean got = lock.tryLock();
                    if (got) {
                        lock.unlock();
                    }
                    return got;
                });
                assertThat(other.get(5, TimeUnit.SECONDS)).isTrue();
                for (ReentrantDistributedLock lock : locks) {
                    lock.unlock();
                }
            }
            finally {
                client.close();
                factory.destroy();
            }
        }
    }
}
