package io.github.relock.benchmarks.workloads;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The mutual-exclusion check inside every critical section: one per lock name, shared by every thread
 * and client that takes that lock in this JVM. Entering while someone else is inside is a violation.
 */
final class OverlapGuard {

    private final AtomicInteger inside = new AtomicInteger();
    private final LongAdder violations = new LongAdder();

    void enter() {
        if (inside.incrementAndGet() != 1) {
            violations.increment();
        }
    }

    void exit() {
        inside.decrementAndGet();
    }

    long violations() {
        return violations.sum();
    }
}
