package io.github.relock.core.reliability;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/** What asynchronous lock calls came to: a count per outcome, and how long each {@code tryLockAsync} took. */
final class CallOutcomes {

    private final Map<String, AtomicLong> counts = new ConcurrentSkipListMap<>();
    private final Queue<Long> latencies = new ConcurrentLinkedQueue<>();

    void add(String outcome) {
        counts.computeIfAbsent(outcome, o -> new AtomicLong()).incrementAndGet();
    }

    /** A {@code tryLockAsync}, from the call to its future's completion. */
    void latency(long millis) {
        latencies.add(millis);
    }

    /** How many calls ended with {@code outcome}: "granted", "timed out", "unlockAsync failed: ..." and the like. */
    long count(String outcome) {
        AtomicLong counted = counts.get(outcome);
        return counted == null ? 0 : counted.get();
    }

    /** Outcomes other than the expected ones, with their counts: failures, refused re-entries. */
    Map<String, Long> otherThan(List<String> expected) {
        return counts.entrySet().stream().filter(e -> !expected.contains(e.getKey()))
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().get(), Long::sum, TreeMap::new));
    }

    Stats latencies() {
        return new Stats(latencies);
    }
}
