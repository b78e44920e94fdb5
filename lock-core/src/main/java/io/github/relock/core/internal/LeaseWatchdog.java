package io.github.relock.core.internal;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the leases of watchdog holds alive: one thread per client renews every such hold every third
 * of the watchdog timeout, in batched script calls. A hold the renewal finds gone is marked lost and
 * reported, and so is a hold whose lease ran out before any renewal got through. Taking a hold out of
 * the {@link HoldRegistry} is what stops its renewal.
 *
 * <p>Nothing ends the renewal thread but {@link #close()}: a round that fails, however it fails, is
 * logged and tried again sooner than usual.
 */
public final class LeaseWatchdog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

    /** After a failed round the next comes this many times sooner: the lease still has about two rounds. */
    private static final int RETRY_SPEED_UP = 4;
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final HoldRegistry holds;
    private final LockCommands commands;
    private final long leaseMillis;
    private final long intervalNanos;
    private final Consumer<Hold> lost;
    /**
     * Where a renewal that waits for Redis has its holds' lease ends watched (see {@link ExpiryGuard}): a thread
     * of its own, since the asynchronous calls' threads may all be waiting for that same Redis.
     */
    private final AsyncRunner timers;
    private final Thread thread;
    private volatile boolean closed;

    public LeaseWatchdog(HoldRegistry holds, LockCommands commands, long leaseMillis, String threadName,
            Consumer<Hold> lost) {
        this.holds = holds;
        this.commands = commands;
        this.leaseMillis = leaseMillis;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, leaseMillis / 3));
        this.lost = lost;
        this.timers = new AsyncRunner(threadName + "-expiry", 1);
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run() {
        long pause = intervalNanos;
        while (!closed) {
            LockSupport.parkNanos(this, pause);
            if (closed) {
                return;
            }
            Thread.interrupted(); // a stray interrupt must not turn the pause into a spin
            boolean renewed;
            try {
                renewed = renewAll();
            }
            catch (Throwable ex) {
                // whatever broke this round, the next one must still run
                log.error("Lock lease renewal round failed; retrying", ex);
                renewed = false;
            }
            reportExpired();
            releaseOverdue();
            holds.forgetEndedBefore(System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(leaseMillis));
            pause = renewed ? intervalNanos : Math.max(MIN_RETRY_NANOS, intervalNanos / RETRY_SPEED_UP);
        }
    }

    /**
     * One renewal round; also callable directly, e.g. by tests.
     *
     * @return whether every batch got an answer from Redis
     */
    public boolean renewAll() {
        // a hold a re-entry gave a longer lease than the watchdog's waits until it is shorter: never shortened
        long soon = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        List<Hold> due = holds.renewable();
        due.removeIf(hold -> hold.confirmedUntilNanos() - soon > 0);
        if (due.isEmpty()) {
            return true;
        }
        List<Hold> round = List.copyOf(due);
        // every hold watched while the round waits, not only this batch's (nor this round's); a round a renewal
        // interval late counts as failed for the deadlines, whenever Redis answers it
        ExpiryGuard guard = ExpiryGuard.start(holds::renewable, timers, this::reportExpired, intervalNanos,
                () -> reportUnacknowledgedExpiry(round));
        try {
            boolean answered = true;
            for (List<Hold> batch : commands.renewalBatches(due)) {
                answered &= renew(batch);
            }
            return answered;
        }
        finally {
            guard.cancel();
        }
    }

    private boolean renew(List<Hold> batch) {
        long sent = System.nanoTime();
        LockCommands.Renewal renewal;
        try {
            renewal = commands.renew(batch, leaseMillis);
        }
        catch (RuntimeException ex) {
            // unknown outcome: the next, earlier round tries again, and reportExpired() owns the deadline
            log.warn("Could not renew {} lock lease(s); retrying: {}", batch.size(), ex.toString());
            reportUnacknowledgedExpiry(batch);
            return false;
        }
        if (!renewal.acknowledged()) {
            reportUnacknowledgedExpiry(batch); // first, so that what the primary renewed for it is given back below
        }
        for (int i = 0; i < batch.size(); i++) {
            Hold hold = batch.get(i);
            if (renewal.renewed().get(i) && hold.lost()) {
                // renewed but reported lost (a late reply, no replica's ack): its unlock() sends nothing, so give it back
                forceRelease(hold, "after a renewal of a hold reported lost");
            }
            else if (renewal.renewed().get(i)) {
                hold.leaseRenewed(sent, leaseMillis);
                if (renewal.acknowledged()) {
                    hold.acknowledged(sent, leaseMillis);
                }
            }
            else if (stillHeld(hold)) {
                // still registered, so not a release racing this renewal: the lock really is gone
                reportLost(hold);
            }
        }
        return true;
    }

    /**
     * Holds whose lease, as last confirmed by Redis (and with minReplicas acknowledged by the replicas), has
     * run out: another owner may have the lock now.
     */
    private void reportExpired() {
        long now = System.nanoTime();
        for (Hold hold : holds.renewable()) {
            if (now - ExpiryGuard.deadline(hold) >= 0) {
                reportExpired(hold);
            }
        }
    }

    private void reportExpired(Hold hold) {
        if (stillHeld(hold)) {
            log.warn("Lock '{}': no renewal got through before its lease ended; reporting it lost", hold.keys().name());
            reportLost(hold);
        }
    }

    /** Ends {@code hold} in Redis, best effort: otherwise it frees when its lease ends. */
    private void forceRelease(Hold hold, String why) {
        try {
            hold.keys().kind().forceRelease(commands, hold);
        }
        catch (RuntimeException ex) {
            log.warn("Lock '{}': could not release it {}; it frees when its lease ends: {}", hold.keys().name(), why,
                    ex.toString());
        }
    }

    /**
     * Holds kept longer than their maximum hold time: no longer renewed, released (best effort: otherwise
     * they expire with their lease) and reported lost, so their owner's unlock() tells it.
     */
    private void releaseOverdue() {
        long now = System.nanoTime();
        for (Hold hold : holds.all()) {
            if (hold.overdue(now) && stillHeld(hold) && hold.markLost()) { // renewal stops first
                forceRelease(hold, "after its maximum hold time");
                log.warn("Lock '{}' was held longer than its maximum hold time: released, and reported lost",
                        hold.keys().name());
                lost.accept(hold);
            }
        }
    }

    /**
     * With minReplicas: a hold whose lease no replica has acknowledged beyond the next round is reported
     * lost now. The primary may still keep it (a partitioned primary, renewing for a holder that can reach
     * it), but after a failover the lock ends where the replicas' lease ends, and another owner may get it.
     */
    private void reportUnacknowledgedExpiry(List<Hold> batch) {
        if (!commands.awaitsReplicas()) {
            return;
        }
        // the next round ends a renewal interval and a WAIT from now
        long nextRound = System.nanoTime() + intervalNanos
                + TimeUnit.MILLISECONDS.toNanos(commands.replicaAckTimeoutMillis());
        for (Hold hold : batch) {
            if (nextRound - hold.acknowledgedUntilNanos() >= 0 && stillHeld(hold)) {
                log.warn("Lock '{}': replicas acknowledged its lease only until now; reporting it lost",
                        hold.keys().name());
                reportLost(hold);
            }
        }
    }

    private boolean stillHeld(Hold hold) {
        return holds.get(hold.keys(), hold.ownerId()) == hold && !hold.lost();
    }

    private void reportLost(Hold hold) {
        if (hold.markLost()) {
            lost.accept(hold);
        }
    }

    /** Whether the calling thread is one of this watchdog's (a close() from there cannot wait for itself). */
    boolean runsOnCurrentThread() {
        return thread == Thread.currentThread() || timers.runsOnCurrentThread();
    }

    /** Stops renewing; leases then run out on their own. Returns once the watchdog's threads have ended. */
    @Override
    public void close() {
        closed = true;
        if (thread == Thread.currentThread()) {
            timers.close();
            return; // closed from a listener: the loop ends when the listener returns
        }
        thread.interrupt(); // cuts a renewal that waits on an unreachable Redis short
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (thread.isAlive() && deadline - System.nanoTime() > 0) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
            catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        timers.close(); // after the renewal thread: no guard starts any more
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
