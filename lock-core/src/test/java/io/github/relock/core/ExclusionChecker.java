package io.github.relock.core;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watches critical sections on a few keys: counts overlaps (two threads inside at once) and lost
 * updates (a non-atomic read-modify-write that a concurrent holder overwrote).
 */
final class ExclusionChecker {

    private final AtomicInteger[] inside;
    private final long[] counters; // deliberately unsynchronized: only the lock protects them
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong sections = new AtomicLong();
    private final long[] expected;

    ExclusionChecker(int keys) {
        inside = new AtomicInteger[keys];
        for (int i = 0; i < keys; i++) {
            inside[i] = new AtomicInteger();
        }
        counters = new long[keys];
        expected = new long[keys];
    }

    /** The critical section: call only while holding the lock for {@code key}. */
    void criticalSection(int key) {
        if (inside[key].incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
        long read = counters[key];
        Thread.onSpinWait();
        Thread.yield(); // widen the read-modify-write window so overlaps lose updates
        counters[key] = read + 1;
        inside[key].decrementAndGet();
        sections.incrementAndGet();
        synchronized (expected) {
            expected[key]++;
        }
    }

    long overlaps() {
        return overlaps.get();
    }

    long sections() {
        return sections.get();
    }

    long lostUpdates() {
        long lost = 0;
        synchronized (expected) {
            for (int i = 0; i < counters.length; i++) {
                lost += expected[i] - counters[i];
            }
        }
        return lost;
    }
}
