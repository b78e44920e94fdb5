package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServer;

/**
 * With {@code minReplicas}, what a holder relies on must have reached a replica: a first acquisition, and a
 * re-entry that lengthens the lease. What no replica acknowledged counts as not taken (fail closed).
 */
@Timeout(60)
@Tag("jdk-independent")
class ReplicaAcknowledgementTest {

    @Test
    void aConnectionDroppedDuringTheWaitNeverCountsAsAcknowledged() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            LettuceConnectionFactory factory = primary.newConnectionFactory();
            try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(30))
                    .minReplicas(1).replicaAckTimeout(Duration.ofSeconds(2)).build()) {
                replica.pause(); // the real WAIT can only time out unacknowledged
                try {
                    CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(
                            () -> client.getLock("reconnected").tryLock());
                    // the acquisition ran and its WAIT blocks: drop that connection, so Lettuce reconnects and
                    // sends the WAIT again on a fresh connection, which has written nothing to wait for
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

    /**
     * Client ids are counted per server: after a reconnect to another server (a failover) the new connection
     * may get the very id the old one had. A WAIT sent again there answers for a connection that wrote
     * nothing, so it must not count, whatever the ids say.
     */
    @Test
    void aWaitAnsweredByAnotherServerNeverCountsEvenUnderTheSameClientId() throws Exception {
        try (RedisServer first = RedisServer.start();
                RedisServer firstReplica = RedisServer.builder().replicaOf(first).start();
                RedisServer second = RedisServer.start();
                RedisServer secondReplica = RedisServer.builder().replicaOf(second).start();
                ChaosProxy proxy = new ChaosProxy(first.port()); Factories factories = new Factories()) {
            Replication.awaitReplicaOnline(first);
            Replication.awaitReplicaOnline(second);
            try (RedisLockClient client = RedisLockClient.builder(factories.standalone(proxy.port(),
                    Duration.ofSeconds(5))).watchdogTimeout(Duration.ofSeconds(30)).minReplicas(1)
                    .replicaAckTimeout(Duration.ofSeconds(3)).build()) {
                for (int i = 0; i < 50; i++) {
                    first.command("CLIENT", "ID"); // ahead of the second server's ids, which then catch up below
                }
                firstReplica.pause(); // the WAIT on the first server blocks
                try {
                    CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(
                            () -> client.getLock("same-id").tryLock());
                    String waiting = Replication.awaitClientBlockedIn(first, "wait");
                    // the second server's next connection gets the same id; the proxy sends it there
                    long id = Long.parseLong(waiting);
                    long next;
                    do {
                        next = Long.parseLong(String.valueOf(second.command("CLIENT", "ID"))) + 1;
                    } while (next < id);
                    assertThat(next).as("the second server's next client id").isEqualTo(id);
                    proxy.retarget(second.port());
                    first.command("CLIENT", "KILL", "ID", waiting);
                    assertThat(acquired.get(20, TimeUnit.SECONDS)).as("acknowledged by a WAIT on another server")
                            .isFalse();
                }
                finally {
                    firstReplica.resume();
                }
            }
        }
    }

    /** A failover would keep the lease the replica last saw: a re-entry that lengthens it must be acknowledged. */
    @Test
    void aReentryThatLengthensTheLeaseWaitsForTheReplicasToo() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            try (RedisLockClient client = RedisLockClient.builder(primary.newConnectionFactory())
                    .watchdogTimeout(Duration.ofSeconds(30)).minReplicas(1)
                    .replicaAckTimeout(Duration.ofMillis(1_000)).build()) {
                ReentrantDistributedLock lock = client.getLock("lengthened");
                assertThat(lock.tryLock(5, 10, TimeUnit.SECONDS)).as("a replica just online may need a moment").isTrue();
                assertThat(lock.tryLock(0, 1, TimeUnit.SECONDS)).as("a shorter lease needs no replica").isTrue();
                replica.pause();
                try {
                    assertThat(lock.tryLock(0, 60, TimeUnit.SECONDS)).as("a longer lease no replica saw").isFalse();
                    assertThat(lock.getHoldCount()).isEqualTo(2);
                    // the holder goes by the lease a replica saw (the primary may keep the longer one: the safe side)
                    assertThat(client.heldLocks().get(0).leaseExpiresAt()).isBefore(Instant.now().plusSeconds(11));
                }
                finally {
                    replica.resume();
                }
                Replication.awaitReplicaOnline(primary);
                assertThat(lock.tryLock(0, 60, TimeUnit.SECONDS)).as("acknowledged once the replica is back").isTrue();
                lock.unlock();
                lock.unlock();
                lock.unlock();
                assertThat(lock.isLocked()).isFalse();
            }
        }
    }

    /** The id of the client whose current command is {@code command}, as CLIENT LIST shows it. */
}
