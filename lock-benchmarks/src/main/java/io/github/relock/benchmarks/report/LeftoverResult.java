package io.github.relock.benchmarks.report;

import java.util.List;

/**
 * What one library leaves in Redis per lock name once its locks are released.
 *
 * @param library           library id
 * @param names             distinct names locked once each and released
 * @param keysPerName       keys there afterwards that were not there before, per name
 * @param bytesPerName      {@code MEMORY USAGE} of those keys, summed, per name
 * @param usedMemoryPerName {@code INFO memory} used_memory after less before, per name: also counts what
 *                          Redis keeps beside each key (its expiry), and moves with anything else
 * @param leftKeys          what the keys left are, one line per shape (the lock name written NAME): how many,
 *                          their type, what one holds, bytes per name and how long they still live, e.g.
 *                          {@code `bench:relock:{NAME}:fence` ×2000: string (1), 56 B/name, expires in 7.0 d}
 * @param note              why the pass did not run or failed; empty if it ran
 */
public record LeftoverResult(String library, int names, double keysPerName, double bytesPerName,
        double usedMemoryPerName, List<String> leftKeys, String note) {

    public static LeftoverResult failed(String library, int names, String why) {
        return new LeftoverResult(library, names, Double.NaN, Double.NaN, Double.NaN, List.of(), why);
    }
}
