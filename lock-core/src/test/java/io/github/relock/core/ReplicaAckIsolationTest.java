package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.relock.test.RedisServer;

/**
 * With {@code minReplicas}, an acquisition WAITs for replicas. WAIT blocks the connection it runs on, so
 * it must not run on the connection the application shares for everything else.
 */
@Timeout(60)
@Tag("jdk-independent")
class ReplicaAckIsolationTest {

    static final Duration ACK_TIMEOUT = Duration.ofMillis(1_000);

    @Test
    void waitingForAReplicaDoesNotHoldUpTheApplicationsOtherCommands() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            LettuceConnectionFactory factory = primary.connectionFactory(); // shares one native connection
            StringRedisTemplate app = new StringRedisTemplate(factory);
            app.opsForValue().set("unrelated", "v");
            Replication.awaitReplicaOnline(primary);
            try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(30))
                    .minReplicas(1).replicaAckTimeout(ACK_TIMEOUT).build()) {
                replica.pause(); // the acquisition's WAIT now takes the whole ack timeout
                try {
                    CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(
                            () -> client.getLock("replicated").tryLock());
                    Thread.sleep(100); // the WAIT is under way
                    long started = System.nanoTime();
                    assertThat(app.opsForValue().get("unrelated")).isEqualTo("v");
                    long getMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                    System.out.printf("GET during a %d ms WAIT took %d ms%n", ACK_TIMEOUT.toMillis(), getMillis);
                    assertThat(getMillis).as("a GET queued behind the WAIT").isLessThan(ACK_TIMEOUT.toMillis() / 2);
                    assertThat(acquired.get(10, TimeUnit.SECONDS)).as("no replica acknowledged: not acquired").isFalse();
                }
                finally {
                    replica.resume();
                }
                Replication.awaitReplicaOnline(primary);
                ReentrantDistributedLock lock = client.getLock("replicated");
                assertThat(lock.tryLock()).as("acknowledged once the replica is back").isTrue();
                lock.unlock();
            }
        }
    }
}
