package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.test.RedisServer;

/**
 * With minReplicas a holder is told its lock is lost before the lease its replicas acknowledged ends: after
 * that a failover may give the lock to another owner. A paused primary holds a renewal up to the factory's
 * command timeout (here 5 s, longer than the 3 s lease); the watchdog must not wait for it to tell.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class PausedPrimaryRenewalTest {

    private static final Duration WATCHDOG = Duration.ofSeconds(3); // renewed every second

    @Test
    void aHolderIsToldBeforeTheAcknowledgedLeaseEndsWhileTheRenewalHangsOnAPausedPrimary() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            CompletableFuture<Instant> told = new CompletableFuture<>();
            try (RedisLockClient client = RedisLockClient.builder(primary.newConnectionFactory())
                    .watchdogTimeout(WATCHDOG).minReplicas(1).replicaAckTimeout(Duration.ofMillis(100))
                    .lockLostListener(event -> told.complete(Instant.now())).build()) {
                ReentrantDistributedLock lock = client.getLock("paused-primary");
                assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
                Thread.sleep(1_300); // at least one acknowledged renewal
                assertThat(lock.isLost()).isFalse();
                Instant paused = Instant.now();
                // everything the replica acknowledged was sent before now: its lease ends by paused + WATCHDOG
                primary.pause();
                try {
                    Instant lostAt = told.get(15, TimeUnit.SECONDS);
                    System.out.printf("told lost %d ms after the primary paused%n",
                            Duration.between(paused, lostAt).toMillis());
                    assertThat(lostAt).as("told before the acknowledged lease ended").isBefore(paused.plus(WATCHDOG));
                }
                finally {
                    primary.resume();
                }
            }
        }
    }
}
