package io.github.relock.benchmarks.workloads;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.report.Result;

/** One throughput/latency workload of the main table, run the same way for every library. */
public interface Workload {

    /** W1, W2, ... */
    String id();

    /** What it does and what its latency column means. */
    String description();

    Result run(LockLibrary library, RunContext context);
}
