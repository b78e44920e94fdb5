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

/** Dedicated connections are given back, and odd settings still fail closed. */
@Timeout(90)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class AcknowledgementLimitsTest {

    @Test
    void twoHundredAcknowledgedAndRefusedAcquisitionsLeaveNoConnectionOpen() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            try (RedisLockClient client = RedisLockClient.builder(primary.newConnectionFactory())
                    .watchdogTimeout(Duration.ofSeconds(30)).minReplicas(1).replicaAckTimeout(Duration.ofMillis(500))
                    .build()) {
                ReentrantDistributedLock lock = client.getLock("churn");
                assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
                lock.unlock();
                int before = Replication.connectedClients(primary);
                for (int i = 0; i < 200; i++) {
                    assertThat(lock.tryLock()).as("acquisition %d", i).isTrue();
                    assertThat(lock.tryLock(0, 60, TimeUnit.SECONDS)).as("a lengthening re-entry").isTrue();
                    lock.unlock();
                    lock.unlock();
                }
                replica.pause();
                try {
                    for (int i = 0; i < 10; i++) {
                        assertThat(lock.tryLock()).as("unacknowledged %d", i).isFalse();
                    }
                }
                finally {
                    replica.resume();
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                int after = Replication.connectedClients(primary);
                while (after > before + 2 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                    after = Replication.connectedClients(primary);
                }
                assertThat(after).as("connected clients before %d", before).isLessThanOrEqualTo(before + 2);
                assertThat(primary.command("EXISTS", "lock:{churn}")).isEqualTo("0");
            }
        }
    }

    @Test
    void moreReplicasRequiredThanExistNeverAcquiresAndLeavesNothingHeld() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            try (RedisLockClient client = RedisLockClient.builder(primary.newConnectionFactory())
                    .watchdogTimeout(Duration.ofSeconds(30)).minReplicas(3).replicaAckTimeout(Duration.ofMillis(50))
                    .build()) {
                ReentrantDistributedLock lock = client.getLock("too-many");
                assertThat(lock.tryLock()).isFalse();
                assertThat(lock.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
                assertThat(lock.isLocked()).isFalse();
                assertThat(client.heldLocks()).isEmpty();
            }
        }
    }

    /** 1 ms is a legal ack timeout: whatever it yields, an acquisition that counts is on the replica. */
    @Test
    void aOneMillisecondAckTimeoutCountsOnlyWhatTheReplicaHas() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            try (RedisLockClient client = RedisLockClient.builder(primary.newConnectionFactory())
                    .watchdogTimeout(Duration.ofSeconds(30)).minReplicas(1).replicaAckTimeout(Duration.ofMillis(1))
                    .build()) {
                ReentrantDistributedLock lock = client.getLock("one-ms");
                int acquired = 0;
                for (int i = 0; i < 50; i++) {
                    if (lock.tryLock()) {
                        acquired++;
                        assertThat(replica.command("HLEN", "lock:{one-ms}")).as("on the replica").isEqualTo("1");
                        lock.unlock();
                    }
                    else {
                        assertThat(client.heldLocks()).isEmpty();
                    }
                }
                System.out.printf("1 ms ack timeout: %d of 50 acquired%n", acquired);
            }
        }
    }
}
