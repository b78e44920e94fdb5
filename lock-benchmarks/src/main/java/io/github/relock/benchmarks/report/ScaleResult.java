package io.github.relock.benchmarks.report;

import java.util.List;

/**
 * One library's figures in the {@code scale} group. NaN where a figure was not measured.
 *
 * @param library           library id
 * @param heldLocks         S1: locks held at once with no lease
 * @param heapPerHold       S1: JVM heap after GC per held lock, bytes (handles dropped; the library's own bookkeeping)
 * @param redisPerLock      S1: Redis {@code used_memory} per held lock, bytes (every key the library keeps for it)
 * @param keyBytesPerLock   S1: {@code MEMORY USAGE} of those keys per held lock, bytes
 * @param heldKeys          S1: what those keys are, one line per shape of key (the lock name written NAME): how
 *                          many, type, what one holds, bytes per lock, time to live
 * @param redisCallsPerSec  S1: every command Redis ran per second while the locks were renewed
 * @param clientCmdsPerSec  S1: top-level commands the client sent per second in that window
 * @param lost              S1: locks no longer held when released at the end (must be 0)
 * @param churnKeys         S3: distinct keys locked once each
 * @param heapAtTenthKb     S3: heap after GC when a tenth of them had been locked, KB
 * @param heapAtEndKb       S3: heap after GC at the end, KB
 * @param note              why a part was skipped, if it was
 */
public record ScaleResult(String library, int heldLocks, double heapPerHold, double redisPerLock,
        double keyBytesPerLock, List<String> heldKeys, double redisCallsPerSec, double clientCmdsPerSec, long lost, int churnKeys, double heapAtTenthKb,
        double heapAtEndKb, String note) {

    /** S3's growth from a tenth of the keys to all of them, in percent (target: at most 10). */
    public double churnGrowthPercent() {
        return (heapAtEndKb - heapAtTenthKb) * 100 / heapAtTenthKb;
    }
}
