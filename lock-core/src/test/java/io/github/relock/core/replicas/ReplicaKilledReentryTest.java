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
 * With {@code minReplicas(1)} and the replica killed mid-hold, a re-entry that lengthens the lease is tried
 * again and again for its wait, each time taken and given back on the primary: it fails closed, and the outer
 * hold stays as it was (count, token, Redis's count never raised); the unacknowledged releases then count once
 * each and free the lock.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ReplicaKilledReentryTest {

    @Test
    void unacknowledgedReentriesFailClosedAndLeaveTheOuterHoldAsItWas() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            try (RedisLockClient client = RedisLockClient.builder(primary.newConnectionFactory())
                    .watchdogTimeout(Duration.ofSeconds(30)).minReplicas(1).replicaAckTimeout(Duration.ofMillis(100))
                    .build()) {
                ReentrantDistributedLock lock = client.getLock("killed-replica");
                assertThat(lock.tryLock(5, 10, TimeUnit.SECONDS)).as("a replica just online may need a moment").isTrue();
                assertThat(lock.tryLock(0, 1, TimeUnit.SECONDS)).as("within the acknowledged lease").isTrue();
                long token = lock.fencingToken();
                replica.kill();
                long start = System.nanoTime();
                assertThat(lock.tryLock(1, 60, TimeUnit.SECONDS)).as("a longer lease no replica can see").isFalse();
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                String stored = primary.command("HVALS", lock.getKey());
                System.out.printf("replica killed: lengthening re-entry refused after %d ms; hold count %d, Redis "
                        + "counts %s, PTTL %s ms%n", tookMillis, lock.getHoldCount(), stored,
                        primary.command("PTTL", lock.getKey()));
                assertThat(tookMillis).as("bounded by the wait and one WAIT").isLessThan(1_600);
                assertThat(lock.getHoldCount()).isEqualTo(2);
                assertThat(lock.fencingToken()).isEqualTo(token);
                assertThat(stored).as("Redis's count: the re-entry counted in the client alone is not sent").isEqualTo("1");
                lock.unlock();
                assertThat(lock.isLocked()).isTrue();
                lock.unlock();
                assertThat(lock.isLocked()).as("freed by the last release, unacknowledged as it is").isFalse();
            }
        }
    }
}
