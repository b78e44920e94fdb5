package io.github.relock.benchmarks.workloads;

import io.github.relock.benchmarks.libraries.LockLibrary;

/** One throughput/latency workload of the main table, run the same way for every library. */
public interface Workload {

    /** W1, W2, ... */
    String id();

    /** What it does and what its latency column means. */
    String description();

    /** Whether it takes read-write or fair locks, so that a library without them is skipped, not failed. */
    default boolean needsLockKinds() {
        return false;
    }

    /**
     * One fresh run: new clients, warm-up, measured window, clients closed.
     *
     * @param count whether to add the MONITOR pass that counts client commands
     */
    Measurement run(LockLibrary library, RunContext context, boolean count);
}
