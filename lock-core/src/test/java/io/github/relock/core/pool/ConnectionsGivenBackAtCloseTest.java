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
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * A client on a pooled factory gives every connection back by the time close() returns, also when close() comes
 * while renewals, asynchronous calls and waiters are on their way: the pool can lend all of them again.
 */
@Timeout(120)
@Tag("redis-version-independent")
class ConnectionsGivenBackAtCloseTest {

    private static final int POOL = 3;

    @Test
    void everyConnectionIsBackAfterCloseMidTraffic() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            LettuceConnectionFactory factory = PooledFactories.pooled(server, POOL, Duration.ofSeconds(2));
            try {
                for (int round = 0; round < 15; round++) {
                    RedisLockClient holder = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofMillis(100))
                            .build();
                    RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofMillis(100))
                            .build();
                    List<CompletableFuture<?>> calls = new ArrayList<>();
                    holder.getLock("back:contended").lock();
                    for (int i = 0; i < 20; i++) {
                        client.getLock("back:own:" + round + ":" + i).lock();
                    }
                    for (int i = 0; i < 4; i++) {
                        calls.add(client.getLock("back:contended").tryLockAsync(Duration.ofSeconds(5), null,
                                client.newOwner()).toCompletableFuture());
                        calls.add(CompletableFuture.runAsync(() -> {
                            try {
                                client.getLock("back:contended").tryLock(5, TimeUnit.SECONDS);
                            }
                            catch (Exception ex) {
                                // closed meanwhile
                            }
                        }));
                    }
                    Thread.sleep(150 + round * 13L % 100);
                    client.close();
                    holder.close();
                    for (CompletableFuture<?> call : calls) {
                        call.handle((r, ex) -> null).get(10, TimeUnit.SECONDS);
                    }
                    assertAllConnectionsLendable(factory, round);
                    server.flushAll();
                }
            }
            finally {
                factory.destroy();
            }
        }
    }

    private static void assertAllConnectionsLendable(LettuceConnectionFactory factory, int round) {
        List<RedisConnection> lent = new ArrayList<>();
        try {
            for (int i = 0; i < POOL; i++) {
                RedisConnection connection = factory.getConnection();
                lent.add(connection);
                assertThat(connection.ping()).as("round %d, connection %d", round, i).isEqualTo("PONG");
            }
        }
        finally {
            lent.forEach(RedisConnection::close);
        }
    }
}
