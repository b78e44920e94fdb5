package io.github.relock.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.ReentrantDistributedLock;

/**
 * A node that answers {@code CLUSTERDOWN} for a second, shorter than the client sends a refused script again: a
 * short wait still takes the lock once the slot is back, a release of a re-entered hold gives back exactly one
 * level, and an asynchronous attempt cancelled meanwhile leaves nothing held.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ClusterDownShortOutageTest {

    @RegisterExtension
    static final ClusterWithAClient nodes = new ClusterWithAClient("short");

    @Test
    void aShortWaitTakesTheLockOnceTheSlotIsBack() throws Exception {
        ReentrantDistributedLock lock = nodes.client().getLock("short:wait");
        try (SlotOutage outage = SlotOutage.of(nodes.cluster(), nodes.client(), lock.getName()).endAfter(1_000)) {
            long start = System.nanoTime();
            assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).isTrue();
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2_500L);
            assertThat(outage.hash()).endsWith("\n1");
            assertThat(nodes.client().heldLocks()).hasSize(1);
        }
        finally {
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
        }
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aReleaseOfAReenteredHoldGivesBackOneLevelOnceTheSlotIsBack() throws Exception {
        ReentrantDistributedLock lock = nodes.client().getLock("short:reentered");
        lock.lock();
        lock.lock(5, TimeUnit.SECONDS); // a level Redis counts too
        try (SlotOutage outage = SlotOutage.of(nodes.cluster(), nodes.client(), lock.getName()).endAfter(1_000)) {
            lock.unlock();
            assertThat(lock.getHoldCount()).isEqualTo(1);
            assertThat(outage.hash()).as("one level given back, once").endsWith("\n1");
            lock.unlock();
            assertThat(outage.hash()).isEmpty();
        }
        assertThat(nodes.client().heldLocks()).isEmpty();
    }

    @Test
    void anAsyncAttemptCancelledWhileSentAgainLeavesNothingHeld() throws Exception {
        ReentrantDistributedLock lock = nodes.client().getLock("short:cancelled");
        try (SlotOutage outage = SlotOutage.of(nodes.cluster(), nodes.client(), lock.getName()).endAfter(1_000)) {
            CompletableFuture<Boolean> attempt = lock.tryLockAsync(Duration.ofSeconds(5), null,
                    nodes.client().newOwner());
            Thread.sleep(300);
            assertThat(attempt.cancel(true)).isTrue();
            Thread.sleep(1_500); // the slot is back, and the attempt sent again has run
            assertThat(outage.hash()).as("a lock taken after the cancel is given back").isEmpty();
        }
        assertThat(lock.isLocked()).isFalse();
        assertThat(nodes.client().heldLocks()).isEmpty();
    }
}
