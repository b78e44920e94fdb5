package io.github.relock.benchmarks.report;

import java.util.Map;

/**
 * The threads one client of a library starts, counted while it holds a lock with no lease, waits on a held lock
 * and makes asynchronous calls.
 *
 * @param library    library id
 * @param own        threads the client started that are not Lettuce's, by name with the client's id and counters
 *                   written {@code ID} and {@code N}
 * @param lettuce    threads started whose names begin with {@code lettuce-} (its event loops and timers)
 * @param commonPool workers of the JVM's {@code ForkJoinPool.commonPool()} started meanwhile (shared by the whole
 *                   JVM; a library may complete its futures there)
 * @param leftAfterClose threads of the client or Lettuce still alive 2 s after the client was closed
 * @param note       why the count was skipped, if it was
 */
public record ThreadsResult(String library, Map<String, Integer> own, int lettuce, int commonPool, int leftAfterClose,
        String note) {

    public static ThreadsResult skipped(String library, String reason) {
        return new ThreadsResult(library, Map.of(), 0, 0, 0, reason);
    }

    public boolean ran() {
        return note.isEmpty();
    }

    /** Threads the client started beyond Lettuce's. */
    public int ownCount() {
        return own.values().stream().mapToInt(Integer::intValue).sum();
    }
}
