package io.github.relock.benchmarks.report;

/**
 * One W7 variant: many callers on few keys.
 *
 * @param variant           which library and way of waiting
 * @param callers           concurrent callers
 * @param acquisitionsPerSecond acquisitions in the measured window, per second
 * @param p99WaitMicros     99th percentile of the time from wanting the lock to holding it
 * @param maxWaitMicros     the longest such wait
 * @param peakThreads       the JVM's peak platform threads during the variant
 * @param addedThreads      that peak less the platform threads alive before the variant started
 * @param heapBytes         heap in use after a GC, with every caller still in flight
 * @param clientCmdsPerAcquisition commands the client sent per acquisition (MONITOR pass); NaN if none counted
 * @param failed            calls that failed or timed out (must be 0)
 * @param note              why it was skipped, if it was
 */
public record CallersResult(String variant, int callers, double acquisitionsPerSecond, long p99WaitMicros,
        long maxWaitMicros, int peakThreads, int addedThreads, long heapBytes, double clientCmdsPerAcquisition,
        long failed, String note) {

    public static CallersResult skipped(String variant, String reason) {
        return new CallersResult(variant, 0, Double.NaN, 0, 0, 0, 0, 0, Double.NaN, 0, reason);
    }

    public boolean ran() {
        return note.isEmpty();
    }
}
