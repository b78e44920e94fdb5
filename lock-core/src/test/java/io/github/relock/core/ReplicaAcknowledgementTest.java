package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.test.RedisServer;

/**
 * With {@code minReplicas}, what a holder relies on must have reached a replica: a first acquisition, and a
 * re-entry that lengthens the lease. What no replica acknowledged counts as not taken (fail closed).
 */
@Timeout(60)
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
                    String waiting = awaitClientBlockedIn(primary, "wait");
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
    private static String awaitClientBlockedIn(RedisServer server, String command) throws InterruptedException {
        Pattern line = Pattern.compile("^id=(\\d+) .* cmd=" + command + "( |$)", Pattern.MULTILINE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Matcher matcher = line.matcher(String.valueOf(server.command("CLIENT", "LIST")));
            if (matcher.find()) {
                return matcher.group(1);
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no client blocked in " + command);
    }
}
