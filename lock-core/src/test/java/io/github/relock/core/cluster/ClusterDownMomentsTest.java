package io.github.relock.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;
import io.lettuce.core.cluster.SlotHash;

/**
 * A cluster node that answers {@code CLUSTERDOWN} for a moment (while it serves no slot for the lock's key, as it
 * may during a failover or a slot's move) did not run the script: the call is sent again, so acquiring, renewing
 * and releasing go through once the node serves the slot again, within their usual wait.
 */
@Timeout(60)
@Tag("jdk-independent")
class ClusterDownMomentsTest {

    static RedisClusterSetup cluster;
    static RedisLockClient client;

    @BeforeAll
    static void start() {
        cluster = RedisClusterSetup.start(3, 0);
        client = RedisLockClient.builder(cluster.newConnectionFactory()).clientId("down")
                .watchdogTimeout(Duration.ofSeconds(2)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void anAcquisitionMadeWhileTheNodeIsDownForAMomentTakesTheLockOnceItIsBack() throws Exception {
        ReentrantDistributedLock lock = client.getLock("down:acquire");
        try (Outage outage = Outage.of(lock)) {
            CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(() -> {
                try {
                    return lock.tryLock(5, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            Thread.sleep(400);
            assertThat(acquired).as("an acquisition during the outage").isNotDone();
            outage.end();
            assertThat(acquired.get(5, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(client.getLock("down:acquire").isLocked()).isTrue();
        lock.forceUnlock();
    }

    @Test
    void aReleaseMadeWhileTheNodeIsDownForAMomentFreesTheLockOnceItIsBack() throws Exception {
        ReentrantDistributedLock lock = client.getLock("down:release");
        ExecutorService holder = Executors.newSingleThreadExecutor();
        try {
            holder.submit(() -> lock.lock()).get();
            try (Outage outage = Outage.of(lock)) {
                Future<?> released = holder.submit(() -> lock.unlock());
                Thread.sleep(400);
                assertThat(released).as("a release during the outage").isNotDone();
                outage.end();
                released.get(5, TimeUnit.SECONDS);
            }
        }
        finally {
            holder.shutdownNow();
        }
        assertThat(lock.isLocked()).isFalse();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void aHoldWhoseRenewalMeetsTheNodeDownForAMomentIsKept() throws Exception {
        ReentrantDistributedLock lock = client.getLock("down:renew");
        lock.lock();
        try {
            try (Outage outage = Outage.of(lock)) {
                Thread.sleep(1_500); // a renewal round (every 2 s / 3) meets the outage
                outage.end();
            }
            Thread.sleep(1_500);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(lock.isLost()).isFalse();
        }
        finally {
            lock.unlock();
        }
        assertThat(lock.isLocked()).isFalse();
    }

    /** The primary of a lock's slot serving no slot for the lock's key until {@link #end()}: CLUSTERDOWN. */
    private static final class Outage implements AutoCloseable {

        private final RedisServer owner;
        private final String slot;
        private boolean ended;

        private Outage(RedisServer owner, String slot) {
            this.owner = owner;
            this.slot = slot;
        }

        static Outage of(ReentrantDistributedLock lock) {
            int slot = SlotHash.getSlot(client.redisKeys(lock.getName()).lock());
            RedisServer owner = cluster.nodeForSlot(slot);
            owner.command("CLUSTER", "DELSLOTS", Integer.toString(slot));
            return new Outage(owner, Integer.toString(slot));
        }

        void end() {
            if (!ended) {
                ended = true;
                owner.command("CLUSTER", "ADDSLOTS", slot);
            }
        }

        @Override
        public void close() {
            end();
        }
    }
}
