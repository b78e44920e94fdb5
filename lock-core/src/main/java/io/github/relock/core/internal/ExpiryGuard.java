package io.github.relock.core.internal;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Watches the watchdog's holds while a renewal round still waits for Redis. Behind a partition, or with the
 * primary paused, Redis answers nothing, and the renewal gives up only at the connection's command timeout,
 * which may be far longer than the lease: meanwhile another client may take the lock. So once the renewal
 * is a renewal interval late, it is treated as a failed round ({@code late}: with minReplicas, holds whose
 * acknowledged lease ends before the next round are reported); and a hold whose lease ends is reported then.
 * Runs on the watchdog's own timer thread; {@link #cancel()} once the round returns.
 */
final class ExpiryGuard implements Runnable {

    /** The holds to watch, asked afresh each time: also those the round left out (a lengthened lease, a new hold). */
    private final Supplier<List<Hold>> holds;
    private final AsyncRunner timers;
    /** Reports a hold whose lease has ended, if it is still held and not yet reported. */
    private final Consumer<Hold> expired;
    /** Runs once, at {@link #lateAt}, if the renewal has not returned by then. */
    private final Runnable late;
    private final long lateAt;
    private volatile boolean lateRun;
    private volatile @Nullable ScheduledFuture<?> next;
    private volatile boolean done;

    private ExpiryGuard(Supplier<List<Hold>> holds, AsyncRunner timers, Consumer<Hold> expired, long lateAt, Runnable late) {
        this.holds = holds;
        this.timers = timers;
        this.expired = expired;
        this.lateAt = lateAt;
        this.late = late;
    }

    /** Watches {@code holds} from now until {@link #cancel()}; runs {@code late} once after {@code lateNanos}. */
    static ExpiryGuard start(Supplier<List<Hold>> holds, AsyncRunner timers, Consumer<Hold> expired, long lateNanos,
            Runnable late) {
        long now = System.nanoTime();
        ExpiryGuard guard = new ExpiryGuard(holds, timers, expired, now + lateNanos, late);
        guard.scheduleNext(now);
        return guard;
    }

    @Override
    public void run() {
        if (done) {
            return;
        }
        long now = System.nanoTime();
        if (!lateRun && now - lateAt >= 0) {
            lateRun = true;
            late.run();
        }
        for (Hold hold : holds.get()) {
            if (!hold.lost() && now - deadline(hold) >= 0) {
                expired.accept(hold);
            }
        }
        scheduleNext(now);
    }

    private void scheduleNext(long now) {
        long earliest = lateRun ? Long.MAX_VALUE : Math.max(0, lateAt - now);
        for (Hold hold : holds.get()) {
            long left = deadline(hold) - now;
            if (!hold.lost() && left > 0 && left < earliest) {
                earliest = left;
            }
        }
        if (earliest == Long.MAX_VALUE || done) {
            return;
        }
        try {
            next = timers.schedule(this, earliest);
        }
        catch (RejectedExecutionException ex) {
            // the client is closing: nothing is reported any more
        }
    }

    /** The renewal returned: its own outcome reports what is lost from here on. */
    void cancel() {
        done = true;
        ScheduledFuture<?> scheduled = next;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }

    /**
     * Until when (System.nanoTime) Redis is known to keep the hold: the lease the primary confirmed, and with
     * minReplicas the one the replicas acknowledged, if that ends first (a failover keeps only that one).
     */
    static long deadline(Hold hold) {
        long confirmed = hold.confirmedUntilNanos();
        long acknowledged = hold.acknowledgedUntilNanos();
        return acknowledged == Long.MAX_VALUE || confirmed - acknowledged <= 0 ? confirmed : acknowledged;
    }
}
