package io.github.relock.benchmarks.report;

/**
 * The latency of one kind of operation in a workload that mixes two (W5: the wait for a read lock, the
 * wait for a write lock), because a figure over both would hide the rare kind behind the common one.
 *
 * @param ops       operations of this kind, over all runs
 * @param p99Micros 99th percentile
 * @param maxMicros maximum
 */
public record KindLatency(long ops, double p99Micros, double maxMicros) {
}
