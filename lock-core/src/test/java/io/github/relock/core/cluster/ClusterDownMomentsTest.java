package io.github.relock.core.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * A cluster node that answers {@code CLUSTERDOWN} for a moment (while it serves no slot for the lock's key, as it
 * may during a failover or a slot's move) did not run the script: the call is sent again, so acquiring, renewing
 * and releasing go through once the node serves the slot again, within their usual wait. A client closed while its
 * calls wait to be sent again ends each of them.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ClusterDownMomentsTest {

    @RegisterExtension
    static final ClusterWithAClient nodes = new ClusterWithAClient("down");

    @Test
    void anAcquisitionMadeWhileTheNodeIsDownForAMomentTakesTheLockOnceItIsBack() throws Exception {
        ReentrantDistributedLock lock = nodes.client().getLock("down:acquire");
        try (SlotOutage outage = SlotOutage.of(nodes.cluster(), nodes.client(), lock.getName())) {
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
        assertThat(nodes.client().getLock("down:acquire").isLocked()).isTrue();
        lock.forceUnlock();
    }

    @Test
    void aReleaseMadeWhileTheNodeIsDownForAMomentFreesTheLockOnceItIsBack() throws Exception {
        ReentrantDistributedLock lock = nodes.client().getLock("down:release");
        ExecutorService holder = Executors.newSingleThreadExecutor();
        try {
            holder.submit(() -> lock.lock()).get();
            try (SlotOutage outage = SlotOutage.of(nodes.cluster(), nodes.client(), lock.getName())) {
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
        assertThat(nodes.client().heldLocks()).isEmpty();
    }

    @Test
    void aHoldWhoseRenewalMeetsTheNodeDownForAMomentIsKept() throws Exception {
        ReentrantDistributedLock lock = nodes.client().getLock("down:renew");
        lock.lock();
        try {
            try (SlotOutage outage = SlotOutage.of(nodes.cluster(), nodes.client(), lock.getName())) {
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

    @Test
    void closingTheClientWhileItsCallsAreSentAgainEndsEveryOneOfThem() throws Exception {
        RedisLockClient closing = RedisLockClient.builder(nodes.cluster().newConnectionFactory()).clientId("closing")
                .watchdogTimeout(Duration.ofSeconds(2)).build();
        ReentrantDistributedLock held = closing.getLock("down:close-held");
        ReentrantDistributedLock wanted = closing.getLock("down:close-wanted");
        LockOwner owner = closing.newOwner();
        held.lockAsync(owner).get(5, TimeUnit.SECONDS);
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        try (SlotOutage heldDown = SlotOutage.of(nodes.cluster(), closing, held.getName());
                SlotOutage wantedDown = SlotOutage.of(nodes.cluster(), closing, wanted.getName())) {
            CompletableFuture<Void> release = held.unlockAsync(owner);
            CompletableFuture<Boolean> attempt = wanted.tryLockAsync(Duration.ofSeconds(5), null, closing.newOwner());
            Future<Boolean> blocking = waiter.submit(() -> wanted.tryLock(5, TimeUnit.SECONDS));
            Thread.sleep(400); // each of them refused and waiting to be sent again
            assertThat(release).isNotDone();
            assertThat(attempt).isNotDone();

            closing.close();

            // ended within a moment of the close, each with a failure, while the slots are still down
            assertThat(release).failsWithin(1, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(IllegalStateException.class);
            assertThat(attempt).failsWithin(1, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> blocking.get(1, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(IllegalStateException.class);
        }
        finally {
            waiter.shutdownNow();
            closing.close();
        }
    }
}
