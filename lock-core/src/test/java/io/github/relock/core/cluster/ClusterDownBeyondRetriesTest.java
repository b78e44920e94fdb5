package io.github.relock.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;


import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOperationException;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * A node that answers {@code CLUSTERDOWN} for longer than the client sends a refused script again (about 2 s): the
 * call fails then, saying what Redis answered, and the client's view of its holds matches Redis once the slot is
 * served again. No thread is added for the re-sending.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ClusterDownBeyondRetriesTest {

    @RegisterExtension
    static final ClusterWithAClient nodes = new ClusterWithAClient("beyond");

    @Test
    void anAttemptWhileTheSlotStaysDownFailsAfterTheRetriesSayingClusterDown() throws Exception {
        ReentrantDistributedLock lock = nodes.client().getLock("beyond:attempt");
        nodes.client().getLock("beyond:other").lock(); // the client's threads are running
        try {
            int threadsBefore = clientThreads();
            try (SlotOutage outage = SlotOutage.of(nodes.cluster(), nodes.client(), lock.getName())) {
                long start = System.nanoTime();
                assertThatThrownBy(lock::tryLock).isInstanceOf(LockOperationException.class)
                        .hasMessageContaining("CLUSTERDOWN");
                long tookMillis = (System.nanoTime() - start) / 1_000_000;
                assertThat(tookMillis).as("sent again for about 2 s").isBetween(1_500L, 3_500L);
                assertThat(clientThreads()).as("threads of the client").isLessThanOrEqualTo(threadsBefore);
            }
            assertThat(lock.isLocked()).isFalse();
            assertThat(nodes.client().heldLocks()).extracting(held -> held.name()).containsExactly("beyond:other");
        }
        finally {
            nodes.client().getLock("beyond:other").unlock();
        }
    }

    @Test
    void aLastReleaseThatOutlastsTheRetriesFailsSayingClusterDownAndTheLeaseFreesTheLock() throws Exception {
        ReentrantDistributedLock lock = nodes.client().getLock("beyond:release");
        lock.lock();
        try (SlotOutage outage = SlotOutage.of(nodes.cluster(), nodes.client(), lock.getName()).endAfter(3_000)) {
            long start = System.nanoTime();
            assertThatThrownBy(lock::unlock).isInstanceOf(LockOperationException.class)
                    .hasMessageContaining("CLUSTERDOWN");
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(1_500L, 3_500L);
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThat(nodes.client().heldLocks()).isEmpty();
            Thread.sleep(3_200 - (System.nanoTime() - start) / 1_000_000);
            outage.end();
            // renewal stopped before the release: the 2 s lease ended during the outage
            assertThat(outage.hash()).isEmpty();
        }
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aReenteredReleaseThatOutlastsTheRetriesLeavesOneLevelThatTheLastReleaseFrees() throws Exception {
        ReentrantDistributedLock lock = nodes.client().getLock("beyond:reentered");
        lock.lock();
        lock.lock(5, java.util.concurrent.TimeUnit.SECONDS); // a level Redis counts too
        try (SlotOutage outage = SlotOutage.of(nodes.cluster(), nodes.client(), lock.getName()).endAfter(2_600)) {
            assertThatThrownBy(lock::unlock).isInstanceOf(LockOperationException.class)
                    .hasMessageContaining("CLUSTERDOWN");
            assertThat(lock.getHoldCount()).isEqualTo(1);
            Thread.sleep(900);
            outage.end();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(outage.hash()).as("the level the failed release did not give back").endsWith("\n2");
            lock.unlock(); // the last level frees the hold whatever Redis still counts
            assertThat(outage.hash()).isEmpty();
        }
        assertThat(lock.isLocked()).isFalse();
        assertThat(nodes.client().heldLocks()).isEmpty();
    }

    private static int clientThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().contains(nodes.client().getClientId())).count();
    }
}
