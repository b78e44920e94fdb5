package io.github.relock.benchmarks.support;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time and allocated bytes of this JVM's threads, per thread, so that a delta between two snapshots
 * counts only what happened in between: threads that ended meanwhile (a previous client's event loops
 * shutting down) are left out instead of making the sum go backwards, and threads that started count in
 * full. Nanosecond resolution, unlike the process-wide {@code OperatingSystemMXBean} figure, which ticks
 * in 10 ms scheduler jiffies.
 *
 * <p>Allocated bytes are the steadiest figure of a library's own per-call overhead (wrapper objects,
 * encodings, futures): the neighbours on a shared machine cannot disturb them.
 */
public final class CpuTime {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Per-thread counters at one moment. */
    public record Snapshot(Map<Long, Long> cpuNanos, Map<Long, Long> bytes) {

        /** CPU nanoseconds used since {@code before}. */
        public long cpuSince(Snapshot before) {
            return since(cpuNanos, before.cpuNanos);
        }

        /** Bytes allocated since {@code before}. */
        public long bytesSince(Snapshot before) {
            return since(bytes, before.bytes);
        }

        private static long since(Map<Long, Long> now, Map<Long, Long> before) {
            long total = 0;
            for (Map.Entry<Long, Long> thread : now.entrySet()) {
                total += Math.max(0, thread.getValue() - before.getOrDefault(thread.getKey(), 0L));
            }
            return total;
        }
    }

    private CpuTime() {
    }

    public static Snapshot snapshot() {
        long[] ids = THREADS.getAllThreadIds();
        long[] cpu = THREADS.getThreadCpuTime(ids);
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        Map<Long, Long> cpuById = new HashMap<>(ids.length * 2);
        Map<Long, Long> bytesById = new HashMap<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++) {
            if (cpu[i] >= 0) {
                cpuById.put(ids[i], cpu[i]);
            }
            if (bytes[i] >= 0) {
                bytesById.put(ids[i], bytes[i]);
            }
        }
        return new Snapshot(cpuById, bytesById);
    }
}
