package io.github.relock.core;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watches critical sections on a few keys: counts overlaps (two threads inside at once) and lost
 * updates (a non-atomic read-modify-write that a concurrent holder overwrote). The one rule of the suite for what
 * an overlap is: every test that checks exclusion runs its sections here.
 */
public final class ExclusionChecker {

    private final AtomicInteger[] inside;
    private final long[] counters; // deliberately unsynchronized: only the lock protects them
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong sections = new AtomicLong();
    private final long[] expected;

    public ExclusionChecker(int keys) {
        inside = new AtomicInteger[keys];
        for (int i = 0; i < keys; i++) {
            inside[i] = new AtomicInteger();
        }
        counters = new long[keys];
        expected = new long[keys];
    }

    /** The critical section: call only while holding the lock for {@code key}. */
    public void criticalSection(int key) {
        criticalSection(key, () -> { });
    }

    /**
     * The critical section with {@code work} (the holder's own checks, a pause) inside it, between the read and the
     * write of the key's counter: call only while holding the lock for {@code key}. A section whose work throws
     * counts as none.
     */
    public void criticalSection(int key, Runnable work) {
        if (inside[key].incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
        try {
            long read = counters[key];
            Thread.onSpinWait();
            Thread.yield(); // widen the read-modify-write window so overlaps lose updates
            work.run();
            counters[key] = read + 1;
            sections.incrementAndGet();
            synchronized (expected) {
                expected[key]++;
            }
        }
        finally {
            inside[key].decrementAndGet();
        }
    }

    public long overlaps() {
        return overlaps.get();
    }

    public long sections() {
        return sections.get();
    }

    public long lostUpdates() {
        long lost = 0;
        synchronized (expected) {
            for (int i = 0; i < counters.length; i++) {
                lost += expected[i] - counters[i];
            }
        }
        return lost;
    }
}
