package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.test.RedisServer;

/**
 * A watchdog re-entry into a hold with a short fixed lease hands it to the watchdog and gives it the watchdog's
 * lease on the primary. With minReplicas that longer lease must reach a replica too: otherwise a failover keeps
 * the short one, while the holder counts on the watchdog until its next round (up to a third of its timeout).
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class WatchdogReentryTest {

    @Test
    void aWatchdogReentryThatLengthensAShortFixedLeaseWaitsForTheReplicas() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            try (RedisLockClient client = RedisLockClient.builder(primary.newConnectionFactory())
                    .watchdogTimeout(Duration.ofSeconds(30)).minReplicas(1).replicaAckTimeout(Duration.ofMillis(200))
                    .build()) {
                ReentrantDistributedLock lock = client.getLock("handed-to-watchdog");
                assertThat(lock.tryLock(5, 2, TimeUnit.SECONDS)).as("a 2 s lease, acknowledged").isTrue();
                replica.pause();
                try {
                    // the primary now keeps it 30 s; the replica, 2 s
                    assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).as("a watchdog lease no replica saw").isFalse();
                    assertThat(lock.getHoldCount()).isEqualTo(1);
                }
                finally {
                    replica.resume();
                }
            }
        }
    }
}
