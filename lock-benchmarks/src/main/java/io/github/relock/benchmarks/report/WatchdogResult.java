package io.github.relock.benchmarks.report;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Renewal traffic while locks are held with no lease.
 *
 * @param library            library id
 * @param locks              locks held
 * @param seconds            length of the counting window
 * @param callsPerSecond     every command Redis executed per second (scripts' inner calls included)
 * @param clientCmdsPerSecond commands the client sent per second (MONITOR), null if not counted
 * @param clientMix          those commands by name, per second
 * @param lost               locks that were no longer held when released at the end (must be 0)
 * @param note               explanation, or why the library was skipped
 */
public record WatchdogResult(String library, int locks, double seconds, double callsPerSecond,
        @Nullable Double clientCmdsPerSecond, Map<String, Double> clientMix, long lost, String note) {
}
