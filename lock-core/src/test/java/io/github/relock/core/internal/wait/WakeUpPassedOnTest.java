package io.github.relock.core.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.github.relock.core.internal.kind.WakeUp;

/**
 * A release wakes one local waiter of a lock; a waiter that leaves never takes a wake-up with it. A release
 * announced while a waiter is leaving (its wait given up or ended, the waiter not yet out of the lock's queue)
 * wakes the next waiter, else that client's other waiters would sleep until their timers, up to a whole lease.
 */
@Tag("redis-version-independent")
class WakeUpPassedOnTest {

    private final WaiterQueue queue = new WaiterQueue("lock:{a}:released", WakeUp.ONE,
            CompletableFuture.completedFuture(null));
    private final AtomicInteger leavingWoken = new AtomicInteger();
    private final AtomicInteger nextWoken = new AtomicInteger();

    @Test
    void aReleaseAnnouncedWhileAWaiterLeavesWakesTheNextWaiter() {
        // the release is heard after the leaving waiter began to leave and before it is out of the queue
        ReleaseWaiter leaving = queuedBeforeTheNext((waiter, unusedWakeUp) -> {
            queue.released("");
            leave(waiter, unusedWakeUp);
        });

        leaving.close();

        assertThat(nextWoken).as("wake-ups of the waiter still waiting").hasValue(1);
    }

    @Test
    void aWakeUpTheLeavingWaiterGotBeforeItLeftGoesToTheNextWaiter() {
        ReleaseWaiter leaving = queuedBeforeTheNext(this::leave);

        queue.released(""); // wakes the first waiter, which then leaves without using it
        leaving.close();

        assertThat(leavingWoken).hasValue(1);
        assertThat(nextWoken).as("wake-ups of the waiter still waiting").hasValue(1);
    }

    @Test
    void aWaiterThatLeavesUnwokenWakesNobody() {
        ReleaseWaiter leaving = queuedBeforeTheNext(this::leave);

        leaving.close();

        assertThat(nextWoken).hasValue(0);
        queue.released("");
        assertThat(nextWoken).as("the next release").hasValue(1);
    }

    /** What ReleaseSubscriptions does when a waiter leaves: out of the queue, then any unused wake-up on. */
    private void leave(ReleaseWaiter waiter, boolean unusedWakeUp) {
        queue.remove(waiter);
        if (unusedWakeUp) {
            queue.wakeOne();
        }
    }

    /** The waiter that leaves by {@code departure}, queued first, with the next waiter queued behind it. */
    private ReleaseWaiter queuedBeforeTheNext(ReleaseWaiter.Departure departure) {
        ReleaseWaiter leaving = waiter(departure, leavingWoken);
        queue.add(leaving);
        queue.add(waiter(this::leave, nextWoken));
        return leaving;
    }

    private ReleaseWaiter waiter(ReleaseWaiter.Departure departure, AtomicInteger woken) {
        return new ReleaseWaiter(queue.turn, departure, null, "owner", woken::incrementAndGet);
    }
}
