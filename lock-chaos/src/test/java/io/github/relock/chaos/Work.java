package io.github.relock.chaos;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The work inside a critical section: it runs in slices and asks between them whether the lock was lost,
 * as the README tells users to before they commit; a holder that is told stops.
 */
final class Work {

    private static final long SLICE_MILLIS = 50;
    /** Set when the run stops: sections end at their next slice, so that the JVM stops quickly. */
    private static volatile boolean stopping;

    private Work() {
    }

    /** Works for {@code millis}; true if {@code isLost} said so first (the holder is then told). */
    static boolean run(long millis, BooleanSupplier isLost, Holder holder) {
        long end = System.nanoTime() + Timing.nanos(millis);
        while (true) {
            lapsed(holder);
            if (lost(isLost)) {
                holder.tell("isLost");
                return true;
            }
            long left = end - System.nanoTime();
            if (left <= 0 || stopping) {
                return false;
            }
            LockSupport.parkNanos(Math.min(left, Timing.nanos(SLICE_MILLIS)));
        }
    }

    static void stop() {
        stopping = true;
    }

    /** How long a section works: mostly a few milliseconds, sometimes longer than a watchdog lease. */
    static long millis(Random random) {
        return random.nextInt(100) < 12 ? 400 + random.nextInt(2_600) : 1 + random.nextInt(40);
    }

    /** Pause between two operations of one driver thread. */
    static void think(Random random) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5 + random.nextInt(50)));
    }

    private static void lapsed(Holder holder) {
        try {
            holder.checkLease();
        }
        catch (RuntimeException ex) {
            // a diagnosis only
        }
    }

    private static boolean lost(BooleanSupplier isLost) {
        try {
            return isLost.getAsBoolean();
        }
        catch (RuntimeException ex) {
            return false; // a question the client could not answer is not an answer
        }
    }
}
