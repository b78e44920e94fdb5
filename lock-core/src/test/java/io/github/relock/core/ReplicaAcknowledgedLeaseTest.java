package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.test.RedisServer;

/**
 * With {@code minReplicas}, the lease a holder may rely on is the one a replica acknowledged, not the longer one
 * the primary confirmed while the replica stopped acknowledging: the lock a failover keeps ends with the former.
 * The random fault schedule found two owners during a Sentinel failover when a re-entry between the two leases
 * skipped the WAIT yet was counted as acknowledged.
 */
@Timeout(60)
@Tag("jdk-independent")
class ReplicaAcknowledgedLeaseTest {

    private static final Duration WATCHDOG = Duration.ofSeconds(6); // renewal every 2 s

    @Test
    void aReentryBeyondTheAcknowledgedLeaseWaitsForTheReplicaAndTheLossIsToldInTime() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            CompletableFuture<Instant> told = new CompletableFuture<>();
            try (RedisLockClient client = RedisLockClient.builder(primary.newConnectionFactory())
                    .watchdogTimeout(WATCHDOG).minReplicas(1).replicaAckTimeout(Duration.ofMillis(100))
                    .lockLostListener(event -> told.complete(Instant.now())).build()) {
                ReentrantDistributedLock lock = client.getLock("acknowledged-lease");
                assertThat(lock.tryLock(5, TimeUnit.SECONDS)).as("a replica just online may need a moment").isTrue();
                Instant acquired = lease(client);
                // right after a renewal the replica acknowledged, it stops acknowledging
                Instant acknowledged = awaitRenewalAfter(client, acquired);
                replica.pause();
                try {
                    // the next renewal reaches the primary only: it confirms a lease longer than the acknowledged one
                    Instant confirmed = awaitRenewalAfter(client, acknowledged);
                    assertThat(Duration.between(acknowledged, confirmed)).isGreaterThan(Duration.ofSeconds(1));
                    Instant between = acknowledged.plus(Duration.between(acknowledged, confirmed).dividedBy(2));
                    long leaseMillis = Duration.between(Instant.now(), between).toMillis();
                    // the primary keeps it that long, but a failover now keeps only the acknowledged lease
                    assertThat(lock.tryLock(0, leaseMillis, TimeUnit.MILLISECONDS))
                            .as("a re-entry beyond the lease the replica acknowledged, with the replica frozen").isFalse();
                    assertThat(lock.getHoldCount()).isEqualTo(1);
                    // without a replica's acknowledgement the holder is told before the acknowledged lease ends
                    Instant lostAt = told.get(WATCHDOG.toMillis() * 2, TimeUnit.MILLISECONDS);
                    assertThat(lostAt).as("told lost before the acknowledged lease ended at %s", acknowledged)
                            .isBefore(acknowledged);
                    assertThat(lock.isLost()).isTrue();
                }
                finally {
                    replica.resume();
                }
            }
        }
    }

    /** When the one hold's lease ends, as its client last confirmed it. */
    private static Instant lease(RedisLockClient client) {
        return client.heldLocks().get(0).leaseExpiresAt();
    }

    /** Waits for the watchdog to renew the one hold (its lease moves past {@code before}); returns the new end. */
    private static Instant awaitRenewalAfter(RedisLockClient client, Instant before) throws InterruptedException {
        long deadline = System.nanoTime() + WATCHDOG.toNanos();
        while (System.nanoTime() < deadline) {
            Instant now = lease(client);
            if (now.isAfter(before.plusMillis(100))) {
                return now;
            }
            Thread.sleep(2);
        }
        throw new AssertionError("the watchdog did not renew within " + WATCHDOG);
    }
}
