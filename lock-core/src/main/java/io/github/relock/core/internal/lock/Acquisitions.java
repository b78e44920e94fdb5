package io.github.relock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import io.github.relock.core.LockKindMismatchException;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOperationException;
import io.github.relock.core.internal.command.AcquireReply;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.RedisFailures;
import io.github.relock.core.internal.command.ScriptCall;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.FairKind;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.kind.LockKind;
import io.github.relock.core.internal.wait.OwnerTurns;
import io.github.relock.core.internal.wait.WaitingOwners;

/**
 * The acquisition round trips of one client's locks, each for one holder and recorded in the client's holds before
 * it returns, so that renewal can never miss a hold. Decides what an earlier hold of the same owner means: a
 * re-entry, a loss to report once, or (seen lost, or a fixed lease that ended) a fresh start.
 *
 * <p>{@code willWait} says whether the caller waits if the lock is busy; some kinds then queue it (see
 * {@link LockKind#acquire}).
 */
public final class Acquisitions {

    /**
     * A hold a release gave is taken up from its announcement only while at least this share of its first lease is
     * left: enough for the renewal that lengthens it. With less, an attempt takes it up.
     */
    private static final int MIN_GIVEN_LEFT_SHARE = 4;

    private final LockCommands commands;
    private final HoldRegistry holds;
    private final WaitingOwners waiting;
    private final OwnerTurns turns;
    /** Tells the lost-lock listeners of a hold found lost. */
    private final Consumer<Hold> lossReporter;
    /** Throws if the client is closed. */
    private final Runnable openCheck;
    /** The lease of holds the watchdog renews. */
    private final long watchdogLeaseMillis;
    /** Has a hold taken up from a release's announcement renewed before its short first lease ends. */
    private final Consumer<Hold> renewEarly;

    /** @param renewEarly see {@link io.github.relock.core.internal.hold.LeaseWatchdog#renewEarly} */
    public Acquisitions(LockCommands commands, HoldRegistry holds, WaitingOwners waiting, OwnerTurns turns,
            Consumer<Hold> lossReporter, Runnable openCheck, long watchdogLeaseMillis, Consumer<Hold> renewEarly) {
        this.commands = commands;
        this.holds = holds;
        this.waiting = waiting;
        this.turns = turns;
        this.lossReporter = lossReporter;
        this.openCheck = openCheck;
        this.watchdogLeaseMillis = watchdogLeaseMillis;
        this.renewEarly = renewEarly;
    }

    /**
     * A hold a release gave a waiter, as its announcement told it (see {@link LockKind#givenHoldMillis()}).
     *
     * @param token         the hold's fencing token
     * @param tokenFloor    the {@link AcquireReply#tokenFloor()} of the waiter's last attempt, which found the lock
     *                      busy: a release after it gives a greater token
     * @param lastSentNanos when that attempt was sent (System.nanoTime)
     */
    public record Given(long token, long tokenFloor, long lastSentNanos) {
    }

    /**
     * Takes or re-enters lock {@code keys} once. No thread waits for the reply. The result fails with
     * {@link LockLostException} for a re-entry into a hold that is gone, {@link LockOperationException} if Redis
     * could not be asked.
     *
     * <p>A waiter that a release gave a hold passes it as {@code given} (null: none). That hold is recorded with no
     * round trip if all of these hold, and otherwise this is an attempt, which takes the given hold up in Redis:
     * <ul>
     * <li>the kind lets its waiters take holds up so ({@link LockKind#givenHoldMillis()});</li>
     * <li>the release came after the waiter's last attempt: its token is above that attempt's
     * {@link AcquireReply#tokenFloor()} (an announcement heard late may be for a wait the owner had before);</li>
     * <li>the owner is a thread, which waits once at a time (an explicit owner's other wait may have taken the
     * same hold up in Redis and released it since), and has no hold of the lock here yet;</li>
     * <li>the watchdog renews it, no replicas must acknowledge it, and enough of its first lease is left.</li>
     * </ul>
     *
     * @param maxHoldNanos how long a first acquisition may be held at most; 0: no limit
     * @param busyFloor    the {@link AcquireReply#tokenFloor()} of this wait's last attempt that found the lock busy,
     *                     0 if none did: only a hold a release gave after it is this wait's to take up in Redis
     */
    public CompletableFuture<AcquireReply> attemptAsync(LockKeys keys, Holder holder, long leaseMillis,
            boolean watchdog, long maxHoldNanos, boolean willWait, @Nullable Given given, long busyFloor) {
        return turns.take(keys, holder, () -> {
            AcquireReply takenUp = given == null || !watchdog ? null : takeUpGiven(keys, holder, given, maxHoldNanos);
            return takenUp != null ? CompletableFuture.completedFuture(takenUp)
                    : attemptInTurn(keys, holder, leaseMillis, watchdog, maxHoldNanos, willWait, busyFloor);
        });
    }

    /** Records the hold a release gave (see above), or returns null if it cannot be taken up without Redis. */
    private @Nullable AcquireReply takeUpGiven(LockKeys keys, Holder holder, Given given, long maxHoldNanos) {
        long givenMillis = keys.kind().givenHoldMillis();
        long since = given.lastSentNanos();
        long left = since + TimeUnit.MILLISECONDS.toNanos(givenMillis) - System.nanoTime();
        // a floor of 0: no attempt of this wait found the lock busy yet, so nothing dates the announcement
        boolean afterLastAttempt = given.tokenFloor() > 0 && given.token() > given.tokenFloor();
        if (givenMillis == 0 || !afterLastAttempt || holder.thread() == null
                || holds.get(keys, holder.id()) != null || commands.awaitsReplicas()
                || left < TimeUnit.MILLISECONDS.toNanos(givenMillis) / MIN_GIVEN_LEFT_SHARE) {
            return null;
        }
        // it lasts as long as the waiter's place, which its last attempt renewed: givenMillis from then, at least
        Hold taken = new Hold(keys, holder.id(), holder.bytes(), holder.thread(), given.token(), true, 1, givenMillis,
                since);
        taken.maxHold(since, maxHoldNanos);
        holds.put(taken);
        renewEarly.accept(taken);
        return new AcquireReply(1, given.token());
    }

    /**
     * Re-enters the caller's live hold in this client alone, if a round trip would change nothing in Redis
     * (see {@link Hold#coversReentry}).
     *
     * @return whether it did; if not, {@link #attemptAsync} decides
     */
    public boolean reenterLocally(LockKeys keys, Holder holder, long leaseMillis, boolean watchdog) {
        openCheck.run();
        return Waits.await(turns.take(keys, holder, () -> CompletableFuture.completedFuture(
                reenteredLocally(holds.get(keys, holder.id()), leaseMillis, watchdog) != null)));
    }

    private @Nullable AcquireReply reenteredLocally(@Nullable Hold hold, long leaseMillis, boolean watchdog) {
        if (hold == null || !hold.coversReentry(System.nanoTime(), leaseMillis, watchdog,
                commands.awaitsReplicas())) {
            return null;
        }
        hold.count(hold.count() + 1);
        return new AcquireReply(hold.count(), hold.fencingToken());
    }

    private CompletableFuture<AcquireReply> attemptInTurn(LockKeys keys, Holder holder, long leaseMillis,
            boolean watchdog, long maxHoldNanos, boolean willWait, long busyFloor) {
        Hold hold = holds.get(keys, holder.id());
        AcquireReply local = reenteredLocally(hold, leaseMillis, watchdog);
        if (local != null) {
            return CompletableFuture.completedFuture(local);
        }
        if (hold != null && hold.lost() && !hold.lossSeen()) {
            holds.remove(hold); // told once; the next call starts afresh
            throw lostOnReentry(keys, holder);
        }
        if (hold != null && (hold.lost() || hold.fixedLeaseEnded())) {
            // the owner saw the loss, or the lease ended as asked: this is a new hold, not a re-entry
            holds.remove(hold);
            hold = null;
        }
        int before = hold == null ? 0 : hold.stored(); // what Redis counts: levels re-entered locally are not sent
        long sent = System.nanoTime();
        // a lease beyond what the hold has left: with minReplicas, replicas must see it too; a watchdog lease
        // as well, since a fixed-lease hold handed to the watchdog is renewed only from its next round on
        boolean lengthens = hold != null
                && sent + TimeUnit.MILLISECONDS.toNanos(leaseMillis) - leftUntil(hold) > 0;
        // if given back unacknowledged, the lease goes back no shorter than a watchdog renewal meanwhile made it
        long floor = !lengthens ? -1 : hold.watchdog() ? watchdogLeaseMillis : 0;
        Hold earlier = hold;
        return keys.kind().acquire(commands, keys, holder.bytes(), leaseMillis, before, floor, willWait, busyFloor)
                .handle((reply, failure) -> {
                    if (failure != null) {
                        Throwable cause = Waits.unwrapped(failure);
                        if (cause instanceof DataAccessException ex) {
                            if (earlier == null && RedisFailures.outcomeUnknown(ex)) {
                                giveBackUnknown(keys, holder);
                            }
                            throw new LockOperationException(keys.name(), keys.lock(), "Could not acquire lock '"
                                    + keys.name() + "': " + RedisFailures.describe(ex), ex);
                        }
                        throw Waits.rethrown(cause);
                    }
                    return replied(keys, earlier, holder, reply, leaseMillis, watchdog, maxHoldNanos, sent, lengthens, before);
                });
    }

    /**
     * Gives back the hold a first acquisition whose reply never came may still take when Redis runs it (a paused
     * or partitioned Redis runs what it was sent once it answers again), since its owner was told it failed and
     * nobody would release it before its lease ends. Sent in the owner's turn, on the connection the acquisition
     * went by, so Redis runs it after that acquisition and before the owner's next one; best effort: if it fails,
     * the lock frees when the lease ends.
     */
    private void giveBackUnknown(LockKeys keys, Holder holder) {
        try {
            keys.kind().giveBackUnknown(commands, keys, holder.bytes()).exceptionally(failure -> false);
        }
        catch (RuntimeException ex) {
            // nothing sent: the lock frees when the lease ends
        }
    }

    /** What the reply to an acquisition means for the caller's hold ({@code hold}: the one it had before, if any). */
    private AcquireReply replied(LockKeys keys, @Nullable Hold hold, Holder holder, AcquireReply reply, long leaseMillis,
            boolean watchdog, long maxHoldNanos, long sent, boolean lengthens, int before) {
        if (reply.acquired()) {
            record(keys, hold, holder, reply, leaseMillis, watchdog, maxHoldNanos, sent, lengthens);
        }
        else if (reply.otherKindHeld()) {
            boolean fair = keys.kind() instanceof FairKind;
            throw new LockKindMismatchException(keys.name(), "Lock '" + keys.name() + "' is held as a "
                    + (fair ? "plain" : "fair") + " lock, and was asked for as a " + (fair ? "fair" : "plain")
                    + " one: the two kinds would not exclude each other, so it was not taken. Every instance must "
                    + "take this name as the same kind (fair or not)");
        }
        else if (reply.holdGone()) {
            if (hold != null) {
                holds.remove(hold);
                if (hold.markLost()) {
                    lossReporter.accept(hold); // found by asking Redis: the listeners hear of it too
                }
            }
            if (before == 0) {
                throw new IllegalStateException("Redis already records holds of lock '" + keys.name() + "' for owner '"
                        + holder.id() + "' that this client did not take");
            }
            throw lostOnReentry(keys, holder);
        }
        return reply;
    }

    /** Call before the first attempt: a waiting caller is counted, see {@link WaitingOwners}. */
    public void started(LockKeys keys, Holder holder, boolean willWait) {
        if (willWait) {
            waiting.arrive(keys, holder.id());
        }
    }

    /**
     * Call once the caller stops trying. A wait that ended without the lock lets the kind undo what waiting
     * left (a claim, a place in line), unless another thread of the same owner still waits. The result completes
     * when Redis took in the undoing; it never fails (best effort, since what it leaves behind expires: the
     * wait's own outcome is what the caller sees).
     */
    public CompletableFuture<Void> endedAsync(LockKeys keys, Holder holder, boolean willWait, boolean acquired) {
        CompletableFuture<Void> nothing = CompletableFuture.completedFuture(null);
        if (!willWait || !waiting.leave(keys, holder.id()) || acquired) {
            return nothing;
        }
        if (keys.kind().queuesPerClient() && waiting.anyWaiting(keys)) {
            return nothing; // another waiter of this client keeps its place
        }
        ScriptCall undo = keys.kind().gaveUp(keys, holder.bytes());
        if (undo == null) {
            return nothing;
        }
        try {
            return commands.sendAsync(undo).exceptionally(failure -> null);
        }
        catch (RuntimeException ex) {
            return nothing;
        }
    }

    /** Whether the client is closed: then no wait waits for Redis to take in its undoing. */
    boolean clientClosed() {
        try {
            openCheck.run();
            return false;
        }
        catch (IllegalStateException closed) {
            return true;
        }
    }

    /**
     * Until when the hold is known kept where it counts: with minReplicas, on a replica. The primary may confirm
     * more (renewals no replica acknowledged), but a failover keeps only what a replica saw.
     */
    private long leftUntil(Hold hold) {
        long confirmed = hold.confirmedUntilNanos();
        long acknowledged = hold.acknowledgedUntilNanos();
        boolean replicasKnowLess = commands.awaitsReplicas() && acknowledged != Long.MAX_VALUE
                && acknowledged - confirmed < 0;
        return replicasKnowLess ? acknowledged : confirmed;
    }

    /** @param waited whether the call waited for the replicas (a re-entry that lengthened the lease) */
    private void record(LockKeys keys, @Nullable Hold hold, Holder holder, AcquireReply reply, long leaseMillis, boolean watchdog,
            long maxHoldNanos, long sent, boolean waited) {
        if (hold == null) {
            Hold acquired = new Hold(keys, holder.id(), holder.bytes(), holder.thread(), reply.value(), watchdog,
                    (int) reply.holds(), leaseMillis, sent);
            acquired.maxHold(sent, maxHoldNanos);
            if (commands.awaitsReplicas()) {
                acquired.acknowledged(sent, leaseMillis); // the acquisition was acknowledged, or not taken
            }
            holds.put(acquired);
            return;
        }
        hold.stored((int) reply.holds());
        hold.count(hold.count() + 1);
        // the longest lease asked for wins: the script lengthened the lease, never shortened it
        hold.leaseRenewed(sent, leaseMillis);
        if (commands.awaitsReplicas() && waited) {
            hold.acknowledged(sent, leaseMillis); // a longer lease was acknowledged, or not taken; never shortens
        }
        if (watchdog) {
            hold.handToWatchdog();
        }
    }

    private static LockLostException lostOnReentry(LockKeys keys, Holder holder) {
        return new LockLostException(keys.name(), keys.lock(), "Lock '" + keys.name() + "' was lost while " + holder.describe()
                + " held it (its lease ran out or it was force-unlocked); re-entry refused");
    }
}
