package io.github.relock.benchmarks.support;

import java.lang.management.ManagementFactory;

/**
 * CPU time used by this JVM so far, in nanoseconds, at nanosecond resolution: the sum over live threads
 * of their CPU time. The process-wide figure of {@code OperatingSystemMXBean} ticks in scheduler
 * jiffies (10 ms), far too coarse for a few hundred lock calls; threads that ended in between are lost,
 * which does not matter for a window where the same threads keep running.
 */
public final class CpuTime {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private CpuTime() {
    }

    public static long nanos() {
        long total = 0;
        for (long cpu : THREADS.getThreadCpuTime(THREADS.getAllThreadIds())) {
            if (cpu > 0) {
                total += cpu;
            }
        }
        return total;
    }
}
