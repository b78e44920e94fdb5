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
 * A re-entry asking for a longer lease that no replica acknowledged counts as not taken, and its give-back
 * restores the lease held before on the primary: if the holder then dies (here: closes without unlocking), the
 * lock frees when the lease held ends (about 2 s), not the refused one (30 s).
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class RefusedReentryLeaseTest {

    @Test
    void aRefusedLongerReentryDoesNotOutliveTheLeaseActuallyHeld() throws Exception {
        try (RedisServer primary = RedisServer.start();
                RedisServer replica = RedisServer.builder().replicaOf(primary).start()) {
            Replication.awaitReplicaOnline(primary);
            ReentrantDistributedLock lock;
            try (RedisLockClient holder = client(primary); RedisLockClient rival = client(primary)) {
                lock = holder.getLock("refused-lease");
                assertThat(lock.tryLock(5, 2, TimeUnit.SECONDS)).as("a replica just online may need a moment").isTrue();
                replica.pause();
                try {
                    assertThat(lock.tryLock(0, 30, TimeUnit.SECONDS)).as("no replica saw the longer lease").isFalse();
                }
                finally {
                    replica.resume();
                }
                long pttl = Long.parseLong(primary.command("PTTL", lock.getKey()));
                holder.close(); // a crash: leases run out on their own
                long start = System.nanoTime();
                boolean got = rival.getLock("refused-lease").tryLock(5, TimeUnit.SECONDS);
                System.out.printf("refused 30 s re-entry on a 2 s hold: PTTL %d ms; rival in %s after %d ms%n", pttl,
                        got, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                assertThat(pttl).as("the primary's lease after the refused re-entry").isLessThanOrEqualTo(2_000);
                assertThat(got).as("the lock frees when the lease held ends").isTrue();
            }
        }
    }

    private static RedisLockClient client(RedisServer primary) {
        return RedisLockClient.builder(primary.newConnectionFactory()).watchdogTimeout(Duration.ofSeconds(30))
                .minReplicas(1).replicaAckTimeout(Duration.ofMillis(200)).build();
    }
}
