package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.core.testing.WrappingFactory;
import io.github.relock.test.RedisServer;

/**
 * A factory that wraps Lettuce's (tracing, metrics) is accepted; its connections are not LettuceConnections by
 * class. With minReplicas their WAIT must still run on a connection of its own, bracketed like any other: a WAIT
 * that Lettuce sent again on a reconnected connection waits for nothing and must not count.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class WrappedFactoryAckTest {

    @Test
    void aWaitSentAgainAfterAReconnectNeverCountsThroughAWrappingFactory() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            LettuceConnectionFactory lettuce = primary.newConnectionFactory();
            try (RedisLockClient client = RedisLockClient.builder(WrappingFactory.wrapped(lettuce))
                    .watchdogTimeout(Duration.ofSeconds(30)).minReplicas(1).replicaAckTimeout(Duration.ofSeconds(2))
                    .build()) {
                ReentrantDistributedLock lock = client.getLock("wrapped");
                assertThat(lock.tryLock(5, TimeUnit.SECONDS)).as("acknowledged through the wrapper").isTrue();
                lock.unlock();
                replica.pause(); // the real WAIT can only time out unacknowledged
                try {
                    CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(lock::tryLock);
                    String waiting = Replication.awaitClientBlockedIn(primary, "wait");
                    primary.command("CLIENT", "KILL", "ID", waiting);
                    assertThat(acquired.get(20, TimeUnit.SECONDS)).as("acknowledged by a WAIT on another connection")
                            .isFalse();
                }
                finally {
                    replica.resume();
                }
            }
        }
    }
}
