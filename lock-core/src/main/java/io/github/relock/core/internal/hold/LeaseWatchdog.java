package io.github.relock.core.internal.hold;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.RedisFailures;
import io.github.relock.core.internal.redis.ClientScheduler;
import io.github.relock.core.internal.redis.RedisErrors;

/**
 * Keeps the leases of watchdog holds alive: a round on the client's {@link ClientScheduler} renews every such
 * hold every third of the watchdog timeout, in batched script calls, and nothing waits for their replies. A hold
 * the renewal finds gone is marked lost and reported, and so is a hold whose lease ran out before any renewal got
 * through: while a round's replies are out, a check on the same scheduler runs at each hold's lease end. A hold
 * whose first lease may end before the next round is renewed alone, early ({@link #renewEarly}), and a check runs
 * at its lease end while that renewal is out. Taking a
 * hold out of the {@link HoldRegistry} is what stops its renewal.
 *
 * <p>Nothing ends the rounds but {@link #close()}: a round that fails, however it fails, is logged and tried
 * again sooner than usual. Every round, reply and check runs on the scheduler thread, one at a time.
 */
public final class LeaseWatchdog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

    /** After a failed round the next comes this many times sooner: the lease still has about two rounds. */
    private static final int RETRY_SPEED_UP = 4;
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /**
     * The checks of a late round run at most once per this share of a renewal interval: each looks at every hold,
     * so one per lease end would, with many holds taken one after another, keep the scheduler busy with checks
     * and leave the round's replies waiting behind them.
     */
    private static final int CHECKS_PER_INTERVAL = 100;
    private static final long MIN_CHECK_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final HoldRegistry holds;
    private final LockCommands commands;
    private final long leaseMillis;
    private final long intervalNanos;
    /** The shortest time between two checks of one late round. */
    private final long checkGapNanos;
    private final Consumer<Hold> lost;
    private final ClientScheduler scheduler;
    private volatile boolean closed;
    /** The next round, or the check while a round's replies are out; scheduler thread only. */
    private @Nullable ScheduledFuture<?> next;
    /** The round whose replies are out, null between rounds; scheduler thread only. */
    private @Nullable Round round;

    /** @param scheduler the client's timer thread, where every round and check runs, and renewals are sent from */
    public LeaseWatchdog(HoldRegistry holds, LockCommands commands, long leaseMillis, ClientScheduler scheduler,
            Consumer<Hold> lost) {
        this.holds = holds;
        this.commands = commands;
        this.leaseMillis = leaseMillis;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, leaseMillis / 3));
        this.checkGapNanos = Math.max(MIN_CHECK_GAP_NANOS, intervalNanos / CHECKS_PER_INTERVAL);
        this.lost = lost;
        this.scheduler = scheduler;
        later(this::startRound, intervalNanos);
    }

    /** The replies of one round, counted in as they come. */
    private final class Round {

        final List<Hold> holds;
        final long lateAt;
        int pending;
        boolean answered = true;
        boolean lateRun;

        Round(List<Hold> holds, int batches) {
            this.holds = holds;
            this.pending = batches;
            this.lateAt = System.nanoTime() + intervalNanos;
        }
    }

    private void later(Runnable task, long nanos) {
        if (closed) {
            return;
        }
        try {
            next = scheduler.schedule(() -> {
                if (!closed) {
                    task.run();
                }
            }, Math.max(0, nanos));
        }
        catch (RejectedExecutionException closing) {
            // the client is closing: no more rounds
        }
    }

    private void startRound() {
        List<List<Hold>> batches;
        try {
            // a hold a re-entry gave a longer lease than the watchdog's waits until it is shorter: never shortened
            long soon = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
            List<Hold> due = holds.renewable();
            due.removeIf(hold -> hold.confirmedUntilNanos() - soon > 0);
            batches = due.isEmpty() ? List.of() : commands.renewalBatches(due);
            if (batches.isEmpty()) {
                endRound(true);
                return;
            }
            round = new Round(List.copyOf(due), batches.size());
        }
        catch (Throwable ex) {
            // whatever broke this round, the next one must still run
            log.error("Lock lease renewal round failed; retrying", ex);
            endRound(false);
            return;
        }
        Round current = round;
        for (List<Hold> batch : batches) {
            send(batch, (sent, renewal, failure) -> replied(current, batch, sent, renewal, failure));
        }
        if (round == current) {
            check(); // while the replies are out, each lease end is watched
        }
    }

    /**
     * Renews {@code hold} alone, half way to the end of its lease as known now, unless a round renewed it first or
     * it ended: for a hold whose first lease is short (a hold a release gave, taken up from its announcement), which
     * could end before the next round. The reply is handled as a round's is; a failure leaves the hold to the rounds,
     * and a hold that no reply lengthened by its lease end is reported lost then.
     */
    public void renewEarly(Hold hold) {
        long half = (hold.confirmedUntilNanos() - System.nanoTime()) / 2;
        try {
            scheduler.schedule(() -> {
                // a round that renewed it gave it a full lease; one renewal interval left is what a round leaves
                if (!closed && stillHeld(hold) && hold.confirmedUntilNanos() - System.nanoTime() < intervalNanos) {
                    renewAlone(hold);
                }
            }, Math.max(0, half));
        }
        catch (RejectedExecutionException closing) {
            // the client is closing: no more renewals
        }
    }

    private void renewAlone(Hold hold) {
        List<Hold> batch = List.of(hold);
        send(batch, (sent, renewal, failure) -> {
            try {
                if (renewal != null && failure == null) {
                    renewed(batch, sent, renewal);
                }
                else {
                    failed(batch, failure);
                }
            }
            catch (Throwable ex) {
                log.error("Lock lease renewal failed; the next round tries again", ex);
            }
        });
        // as while a round's replies are out: a renewal unanswered by the lease's end leaves the hold lost then
        leaseEndCheck(hold);
    }

    /** What to do with a renewal's outcome, on the scheduler: {@code sent} is when it was sent. */
    private interface RenewalReply {
        void handle(long sent, LockCommands.@Nullable Renewal renewal, @Nullable Throwable failure);
    }

    /** Sends one batch's renewal; no thread waits for the reply, which {@code reply} handles on the scheduler. */
    private void send(List<Hold> batch, RenewalReply reply) {
        long sent = System.nanoTime();
        CompletableFuture<LockCommands.Renewal> renewal;
        try {
            renewal = commands.renewAsync(batch, leaseMillis);
        }
        catch (RuntimeException ex) {
            renewal = CompletableFuture.failedFuture(ex);
        }
        renewal.whenComplete((renewed, failure) -> onScheduler(() -> reply.handle(sent, renewed, failure)));
    }

    /** Reports {@code hold} lost at the end of its lease as known now, unless a renewal lengthened it by then. */
    private void leaseEndCheck(Hold hold) {
        try {
            scheduler.schedule(() -> {
                if (!closed && System.nanoTime() - hold.knownUntilNanos() >= 0) {
                    reportExpired(hold);
                }
            }, Math.max(0, hold.knownUntilNanos() - System.nanoTime()));
        }
        catch (RejectedExecutionException closing) {
            // the client is closing: no more checks
        }
    }

    /** Runs {@code task} on the scheduler (a reply completes on Lettuce's event loop, which must not be held). */
    private void onScheduler(Runnable task) {
        try {
            scheduler.execute(() -> {
                if (!closed) {
                    task.run();
                }
            });
        }
        catch (RejectedExecutionException closing) {
            // the client is closing: the reply changes nothing any more
        }
    }

    private void replied(Round of, List<Hold> batch, long sent, LockCommands.@Nullable Renewal renewal,
            @Nullable Throwable failure) {
        boolean answered;
        try {
            answered = renewal != null && failure == null ? renewed(batch, sent, renewal) : failed(batch, failure);
        }
        catch (Throwable ex) {
            log.error("Lock lease renewal round failed; retrying", ex);
            answered = false;
        }
        of.answered &= answered;
        if (--of.pending == 0 && round == of) {
            endRound(of.answered);
        }
    }

    /** What Redis said, or that it did not answer, in the words of {@link RedisFailures#describe}. */
    private static String said(Throwable failure) {
        RuntimeException translated = RedisErrors.translate(failure);
        return translated instanceof DataAccessException redis ? RedisFailures.describe(redis) : translated.toString();
    }

    private boolean failed(List<Hold> batch, @Nullable Throwable failure) {
        // unknown outcome: the next, earlier round tries again, and reportExpired() owns the deadline
        log.warn("Could not renew {} lock lease(s); retrying: {}", batch.size(),
                failure == null ? "no reply" : said(failure));
        reportUnacknowledgedExpiry(batch);
        return false;
    }

    /** After a round: what ended is reported, and the next round is set, sooner if this one failed. */
    private void endRound(boolean renewed) {
        Round ended = round;
        round = null;
        if (next != null) {
            next.cancel(false); // the check of the round just ended
        }
        try {
            reportExpired();
            releaseOverdue();
            holds.forgetEndedBefore(System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(leaseMillis));
        }
        catch (Throwable ex) {
            log.error("Lock lease renewal round failed; retrying", ex);
            renewed = false;
        }
        long wait = renewed ? intervalNanos : Math.max(MIN_RETRY_NANOS, intervalNanos / RETRY_SPEED_UP);
        if (ended != null) {
            // rounds keep their beat: one whose replies came late is followed one interval after it was sent, not
            // after its last reply, since the leases it gave run from when it was sent
            wait = Math.min(wait, Math.max(0, ended.lateAt - System.nanoTime()));
        }
        later(this::startRound, wait);
    }

    /**
     * While a round's replies are out: behind a partition, or with the primary paused, Redis answers nothing until
     * the command timeout, which may be far longer than the lease. So once the round is a renewal interval late it
     * counts as failed ({@code late}: with minReplicas, holds whose acknowledged lease ends before the next round
     * are reported); and a hold whose lease ends is reported then. Runs again at the next such moment, but not
     * sooner than {@link #checkGapNanos} (a hundredth of the renewal interval, at least 1 ms) after this check.
     */
    private void check() {
        Round current = round;
        if (current == null) {
            return;
        }
        long now = System.nanoTime();
        if (!current.lateRun && now - current.lateAt >= 0) {
            current.lateRun = true;
            reportUnacknowledgedExpiry(current.holds);
        }
        reportExpired();
        long earliest = current.lateRun ? Long.MAX_VALUE : current.lateAt - now;
        for (Hold hold : holds.renewable()) {
            long left = hold.knownUntilNanos() - now;
            if (!hold.lost() && left > 0 && left < earliest) {
                earliest = left;
            }
        }
        if (earliest != Long.MAX_VALUE) {
            later(this::check, Math.max(earliest, checkGapNanos));
        }
    }

    private boolean renewed(List<Hold> batch, long sent, LockCommands.Renewal renewal) {
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
            if (now - hold.knownUntilNanos() >= 0) {
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
        CompletableFuture<Boolean> released;
        try {
            released = hold.keys().kind().forceRelease(commands, hold.keys(), hold.ownerBytes(), hold.tokenBytes());
        }
        catch (RuntimeException ex) {
            released = CompletableFuture.failedFuture(ex);
        }
        released.whenComplete((done, failure) -> {
            if (failure != null) {
                log.warn("Lock '{}': could not release it {}; it frees when its lease ends: {}", hold.keys().name(), why,
                        said(failure));
            }
        });
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

    /** Whether the calling thread is the watchdog's scheduler (a close() from there cannot wait for itself). */
    public boolean runsOnCurrentThread() {
        return scheduler.runsOnCurrentThread();
    }

    /** Stops renewing; leases then run out on their own. A round whose replies are out changes nothing more. */
    @Override
    public void close() {
        closed = true;
    }
}
