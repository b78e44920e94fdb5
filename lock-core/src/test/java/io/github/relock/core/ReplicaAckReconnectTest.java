package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.test.RedisServer;

/**
 * Lettuce reconnects by itself and may send again what was in flight. A WAIT that ends up on another
 * connection than the script's says nothing about the script's write: the acquisition must then count as
 * not acknowledged (fail closed). The client brackets the WAIT with CLIENT ID to tell.
 */
@Timeout(60)
class ReplicaAckReconnectTest {

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
