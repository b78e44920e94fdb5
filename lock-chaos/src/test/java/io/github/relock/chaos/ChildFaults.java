package io.github.relock.chaos;

import org.springframework.data.redis.connection.PoolException;

/**
 * The faults the parent switches on inside a client JVM, each for a while: lock-lost listeners that
 * throw, and a connection factory whose pool is exhausted. JVM-wide, so both clients of the JVM see them.
 */
final class ChildFaults {

    private static volatile long listenerUntil;
    private static volatile String listenerMode = "none";
    private static volatile long poolUntil;

    private ChildFaults() {
    }

    /** From now on, for {@code millis}, listeners throw: {@code runtime}, {@code assertion} or {@code error}. */
    static void listenerThrows(String mode, long millis) {
        listenerMode = mode;
        listenerUntil = System.nanoTime() + Timing.nanos(millis);
    }

    /** From now on, for {@code millis}, {@code getConnection()} throws {@link PoolException}. */
    static void poolExhausted(long millis) {
        poolUntil = System.nanoTime() + Timing.nanos(millis);
    }

    static void throwFromListenerIfDue() {
        if (System.nanoTime() - listenerUntil >= 0) {
            return;
        }
        switch (listenerMode) {
            case "runtime" -> throw new IllegalStateException("chaos: a listener that fails");
            case "assertion" -> throw new AssertionError("chaos: a listener with a failing assertion");
            case "error" -> throw new Error("chaos: a listener that throws an Error");
            default -> {
                // no fault
            }
        }
    }

    static void throwFromPoolIfDue() {
        if (System.nanoTime() - poolUntil < 0) {
            throw new PoolException("chaos: could not get a resource from the pool");
        }
    }
}
