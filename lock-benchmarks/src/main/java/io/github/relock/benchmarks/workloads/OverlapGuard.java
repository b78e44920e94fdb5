package io.github.relock.benchmarks.workloads;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The mutual-exclusion check inside every critical section: one per lock name, shared by every thread
 * and client that takes that lock in this JVM. An exclusive entry while anyone else is inside, or a
 * shared entry (a read lock's) while an exclusive holder is inside, is a violation; shared entries may
 * overlap each other.
 */
final class OverlapGuard {

    /** Shared holders count in the low bits, exclusive ones from here up, so one atomic add sees both. */
    private static final int EXCLUSIVE = 1 << 16;

    private final AtomicInteger inside = new AtomicInteger();
    private final LongAdder violations = new LongAdder();

    void enter() {
        if (inside.addAndGet(EXCLUSIVE) != EXCLUSIVE) {
            violations.increment();
        }
    }

    void exit() {
        inside.addAndGet(-EXCLUSIVE);
    }

    void enterShared() {
        if (inside.incrementAndGet() >= EXCLUSIVE) {
            violations.increment();
        }
    }

    void exitShared() {
        inside.decrementAndGet();
    }

    long violations() {
        return violations.sum();
    }
}
