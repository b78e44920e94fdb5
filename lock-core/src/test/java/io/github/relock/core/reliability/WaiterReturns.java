package io.github.relock.core.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * How waiters with a wait of their own came back: acquired, timed out or failed, how far past their wait each
 * returned, and how many did not return by their wait + 5 s (hung).
 */
final class WaiterReturns {

    final List<Long> overrun = new ArrayList<>(); // return time minus wait time, ms
    long hung;
    long acquired;
    long timedOut;
    long failed;

    /**
     * Takes each waiter's row ({wait start, return, outcome: 1 acquired, 0 timed out, -1 failed, ...}) by a
     * common deadline of the wait + 5 s, cancelling those that miss it, and hands each acquired row to
     * {@code onAcquired}.
     */
    void collect(List<Future<long[]>> waiters, long waitMillis, Consumer<long[]> onAcquired)
            throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis + 5_000);
        for (Future<long[]> waiter : waiters) {
            try {
                long[] w = waiter.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                overrun.add(TimeUnit.NANOSECONDS.toMillis(w[1] - w[0]) - waitMillis);
                switch ((int) w[2]) {
                    case 1 -> {
                        acquired++;
                        onAcquired.accept(w);
                    }
                    case 0 -> timedOut++;
                    default -> failed++;
                }
            }
            catch (TimeoutException ex) {
                hung++;
                waiter.cancel(true);
            }
        }
    }

    /** The overruns of the last {@code count} waiters collected, for a trial's line of output. */
    List<Long> lastOverruns(int count) {
        return overrun.subList(Math.max(0, overrun.size() - count), overrun.size());
    }
}
