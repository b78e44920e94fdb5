package io.github.relock.core.replicas;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.Replication;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServer;

/**
 * The connection drops right after the server ran one step of CLIENT ID, INFO, the script, WAIT: Lettuce
 * reconnects and sends again what had no reply. Whatever step it was, an acquisition counts only if a replica
 * has it, and one that does not count leaves nothing held.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CutAtEachStepTest {

    @ParameterizedTest
    @ValueSource(strings = {"CLIENT\r\n$2\r\nID", "INFO\r\n$6\r\nserver", "EVALSHA", "$4\r\nWAIT\r\n"})
    void aCutAtAnyStepNeverCountsWhatNoReplicaHas(String marker) throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start();
                ChaosProxy proxy = new ChaosProxy(primary.port()); Factories factories = new Factories()) {
            Replication.awaitReplicaOnline(primary);
            try (RedisLockClient client = RedisLockClient.builder(factories.standalone(proxy.port(),
                    Duration.ofSeconds(5))).watchdogTimeout(Duration.ofSeconds(30)).minReplicas(1)
                    .replicaAckTimeout(Duration.ofMillis(500)).build()) {
                ReentrantDistributedLock lock = client.getLock("cut");
                // with the replica live: counted only if the replica has it
                for (int i = 0; i < 3; i++) {
                    int cuts = proxy.cuts();
                    proxy.cutAfterReplyTo(marker);
                    boolean acquired = lock.tryLock(2, TimeUnit.SECONDS);
                    proxy.disarm();
                    if (acquired) {
                        assertThat(replica.command("HLEN", "lock:{cut}")).as("on the replica").isEqualTo("1");
                        lock.unlock();
                    }
                    System.out.printf("%s live: cut %d, acquired %s%n", marker.replace("\r\n", " "),
                            proxy.cuts() - cuts, acquired);
                }
                // with the replica paused: never counted, nothing left
                replica.pause();
                try {
                    int cuts = proxy.cuts();
                    proxy.cutAfterReplyTo(marker);
                    assertThat(lock.tryLock()).as("no replica can acknowledge").isFalse();
                    proxy.disarm();
                    System.out.printf("%s paused: cut %d%n", marker.replace("\r\n", " "), proxy.cuts() - cuts);
                }
                finally {
                    replica.resume();
                }
                assertThat(client.heldLocks()).isEmpty();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (!"0".equals(primary.command("EXISTS", "lock:{cut}")) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(primary.command("EXISTS", "lock:{cut}")).as("given back").isEqualTo("0");
            }
        }
    }
}
