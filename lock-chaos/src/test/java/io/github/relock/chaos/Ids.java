package io.github.relock.chaos;

import java.util.concurrent.atomic.AtomicLong;

/** Ids that tie events together: one per hold (first acquisition to last release) and one per API call. */
final class Ids {

    private static final AtomicLong HOLDS = new AtomicLong();
    private static final AtomicLong OPS = new AtomicLong();

    private Ids() {
    }

    static String hold(int jvm) {
        return "h" + jvm + "." + HOLDS.incrementAndGet();
    }

    static String op(int jvm) {
        return "o" + jvm + "." + OPS.incrementAndGet();
    }
}
