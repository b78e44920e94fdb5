package io.github.relock.core.internal.lock;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.wait.ClientTurn;
import io.github.relock.core.internal.wait.ReleaseSubscriptions;
import io.github.relock.core.internal.wait.ReleaseWaiter;

/**
 * The local hand-off: a last release gives the lock straight to a thread of this client asleep on it, in
 * one script call, with nothing announced, so the other clients' waiters are not woken for nothing. Once
 * this client's turn is used up ({@link ClientTurn}) the same call gives the lock to the next client in the
 * lock's line instead, if one is in it, and puts this client at the back. Built once per client; each call
 * names the lock.
 */
public final class HandOff {

    /** What a hand-off came to. */
    enum Outcome {
        /** Nobody here was asleep, or Redis refused the move: release as usual. */
        NOT_TRIED,
        /** The hold moved to a local waiter, or went to the next client in line. */
        DONE,
        /** The releasing hold was no longer in Redis. */
        LOST
    }

    /** What {@link Transfer#transfer} returns when transfer.lua refused the move outright, changing nothing. */
    static final long TRANSFER_REFUSED = -2;

    /** Moves a last hold to a local waiter in one script call (see {@link LockCommands#transfer}). */
    @FunctionalInterface
    public interface Transfer {

        /**
         * @return the waiter's fencing token, 0 if it went to the next client in line instead, -1 if {@code hold} was no
         *         longer in Redis, {@link #TRANSFER_REFUSED} if nothing changed
         */
        CompletableFuture<Long> transfer(LockKeys keys, Hold hold, ReleaseWaiter.Candidate to, boolean turnUsedUp);
    }

    private final ReleaseSubscriptions subscriptions;
    private final HoldRegistry holds;
    private final Transfer releases;

    public HandOff(ReleaseSubscriptions subscriptions, HoldRegistry holds, Transfer releases) {
        this.subscriptions = subscriptions;
        this.holds = holds;
        this.releases = releases;
    }

    /** Hands on {@code hold} of lock {@code keys}, already out of the registry so that its renewal has stopped. */
    CompletableFuture<Outcome> handOn(LockKeys keys, Hold hold) {
        ReleaseWaiter next = subscriptions.reserveSleeper(keys.channel());
        if (next == null) {
            return CompletableFuture.completedFuture(Outcome.NOT_TRIED);
        }
        ReleaseWaiter.Candidate to = Objects.requireNonNull(next.candidate());
        ClientTurn turn = next.turn();
        long now = System.nanoTime();
        CompletableFuture<Long> sent;
        try {
            sent = releases.transfer(keys, hold, to, turn.usedUp(now));
        }
        catch (RuntimeException | Error ex) {
            sent = CompletableFuture.failedFuture(ex);
        }
        return sent.handle((token, failure) -> {
            if (failure != null) {
                next.decline(); // it tries on its own; if the hand-off did happen, acquire.lua finds the hold its own
                throw Waits.rethrown(failure);
            }
            return handedOn(keys, hold, token, next, to, turn, now);
        });
    }

    private Outcome handedOn(LockKeys keys, Hold released, long token, ReleaseWaiter next, ReleaseWaiter.Candidate to,
            ClientTurn turn, long now) {
        if (token == TRANSFER_REFUSED) {
            next.decline();
            return Outcome.NOT_TRIED; // nothing changed (e.g. over maxmemory, where a plain release still works)
        }
        if (token < 0) {
            next.decline();
            return Outcome.LOST;
        }
        if (token == 0) {
            turn.ended();
            next.passOver(); // the line's first has it: this waiter, in line, sleeps until its turn is announced
            return Outcome.DONE;
        }
        // the releasing hold is over once the new one exists: never both listed (heldLocks())
        holds.released(released);
        // registered (and renewed, without a lease of its own) before the new owner wakes
        Hold handed = new Hold(keys, to.ownerId(), to.ownerThread(), token, to.watchdog(), 1, to.leaseMillis(), now);
        handed.maxHold(now, to.maxHoldNanos());
        holds.put(handed);
        turn.handedOff(now);
        next.grant();
        return Outcome.DONE;
    }
}
