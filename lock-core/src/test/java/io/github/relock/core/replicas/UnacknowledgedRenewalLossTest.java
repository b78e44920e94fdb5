package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockLostException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.test.RedisServer;

/**
 * With {@code minReplicas(1)} and the replica paused, the watchdog reports a hold lost when the lease the replica
 * acknowledged would end, though the renewal that found this out went through on the primary. The holder is told
 * it lost the lock and its {@code unlock()} sends nothing, so the client gives the hold back itself: once the
 * replica is back the lock is free, not held by nobody for a whole watchdog timeout more.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class UnacknowledgedRenewalLossTest {

    private static final Duration WATCHDOG = Duration.ofMillis(4_500); // renewal every 1.5 s

    @Test
    void aHoldReportedLostForWantOfAcknowledgementIsGivenBackNotLeftToItsLease() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            CompletableFuture<Long> told = new CompletableFuture<>();
            try (RedisLockClient holder = client(primary).lockLostListener(e -> told.complete(System.nanoTime()))
                    .build(); RedisLockClient rival = client(primary).build()) {
                ReentrantDistributedLock lock = holder.getLock("nobody");
                assertThat(lock.tryLock(5, TimeUnit.SECONDS)).as("a replica just online may need a moment").isTrue();
                replica.pause();
                long toldAt;
                try {
                    toldAt = told.get(WATCHDOG.toMillis() * 2, TimeUnit.MILLISECONDS);
                }
                finally {
                    replica.resume();
                }
                Replication.awaitReplicaOnline(primary);
                assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
                // the give-back may come a moment after the listener heard: what counts is the rival's wait
                long pttl = Long.parseLong(primary.command("PTTL", lock.getKey()));
                long start = System.nanoTime();
                boolean got = rival.getLock("nobody").tryLock(10, TimeUnit.SECONDS);
                long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf("told lost %d ms ago; after the holder's unlock() the key had PTTL %d ms; a rival "
                        + "waited %d ms%n", TimeUnit.NANOSECONDS.toMillis(start - toldAt), pttl, waitedMillis);
                assertThat(got).isTrue();
                assertThat(waitedMillis).as("a rival's wait for a lock nobody holds").isLessThan(500);
            }
        }
    }

    private static RedisLockClient.Builder client(RedisServer primary) {
        return RedisLockClient.builder(primary.newConnectionFactory()).watchdogTimeout(WATCHDOG).minReplicas(1)
                .replicaAckTimeout(Duration.ofMillis(100));
    }
}
