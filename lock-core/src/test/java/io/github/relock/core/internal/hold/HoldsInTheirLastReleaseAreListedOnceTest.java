package io.github.relock.core.internal.hold;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.internal.kind.LockKeys;

/**
 * A hold whose last release is in flight is still held in Redis: the client's list of its holds (what
 * {@code heldLocks()} shows, and what a shutdown waits for) shows it exactly once, never twice and never not at all,
 * however the listing interleaves with the release.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class HoldsInTheirLastReleaseAreListedOnceTest {

    @Test
    void aHoldInItsLastReleaseIsListedOnceAndNeverMissed() throws Exception {
        HoldRegistry registry = new HoldRegistry();
        Hold hold = new Hold(LockKeys.of("", "listing"), "owner", null, 1, true, 1, 30_000, System.nanoTime());
        AtomicBoolean done = new AtomicBoolean();
        // odd: the hold is registered or in its last release, so held in Redis; even: it ends, or ended
        AtomicLong phase = new AtomicLong();
        Thread releaser = new Thread(() -> {
            while (!done.get()) {
                registry.put(hold);
                phase.incrementAndGet();
                registry.removeForRelease(hold);
                phase.incrementAndGet();
                registry.released(hold);
            }
        });
        releaser.start();
        long twice = 0;
        long missed = 0;
        long listings = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        try {
            while (System.nanoTime() < end) {
                long before = phase.get();
                Collection<Hold> held = registry.held();
                boolean heldThroughout = before % 2 == 1 && phase.get() == before;
                listings++;
                if (held.size() > 1) {
                    twice++;
                }
                else if (held.isEmpty() && heldThroughout) {
                    missed++;
                }
            }
        }
        finally {
            done.set(true);
            releaser.join();
        }
        assertThat(twice).as("listings showing the hold twice, of %d", listings).isZero();
        assertThat(missed).as("listings missing a hold still held, of %d", listings).isZero();
    }
}
