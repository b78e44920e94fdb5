package io.github.relock.benchmarks.report;

import java.util.Map;

/**
 * S4: renewal traffic of locks held with no lease on a 3-primary cluster.
 *
 * @param layout          how the lock names fall over slots, e.g. "spread" or "8 slots"
 * @param locks           locks held
 * @param slots           distinct Cluster slots of their keys
 * @param floorPerTick    the fewest script calls one renewal round can take: one per slot, at most 256 locks each
 * @param ticks           renewal rounds in the window: HEXISTS calls (one per lock per round) / locks
 * @param clientCmdsPerTick script calls (EVALSHA + EVAL) the client sent per round, over every node
 * @param mixPerTick      EVALSHA, EVAL and CLUSTER (topology) calls per round
 * @param lost            locks no longer held when released at the end
 */
public record RenewalResult(String library, String layout, int locks, int slots, int floorPerTick, double ticks,
        double clientCmdsPerTick, Map<String, Double> mixPerTick, long lost, String note) {
}
