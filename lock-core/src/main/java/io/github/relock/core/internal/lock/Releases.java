package io.github.relock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.github.relock.core.LockLostException;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.wait.OwnerTurns;

/**
 * Gives back or hands on one level of a hold, for every lock of one client: counts the levels, stops renewal before
 * the last one goes, and tells of a hold found lost. The scripts are sent by {@link ReleaseScripts}, again after an
 * unknown outcome; no thread waits for Redis.
 */
public final class Releases {

    private final HoldRegistry holds;
    private final OwnerTurns turns;
    /** Tells the lost-lock listeners of a hold found lost. */
    private final Consumer<Hold> lossReporter;
    private final HandOff handOff;
    private final ReleaseScripts scripts;

    public Releases(HoldRegistry holds, OwnerTurns turns, Consumer<Hold> lossReporter, HandOff handOff,
            ReleaseScripts scripts) {
        this.holds = holds;
        this.turns = turns;
        this.lossReporter = lossReporter;
        this.handOff = handOff;
        this.scripts = scripts;
    }

    /**
     * Gives back one level of {@code holder}'s hold of lock {@code keys}, and waits until Redis took it in.
     *
     * @throws IllegalMonitorStateException if it holds none
     * @throws LockLostException            if its hold is gone (it is told once)
     */
    public void unlock(LockKeys keys, Holder holder) {
        Waits.await(unlockAsync(keys, holder));
    }

    /** {@link #unlock(LockKeys, Holder)}, whose result fails as that throws. */
    public CompletableFuture<Void> unlockAsync(LockKeys keys, Holder holder) {
        return turns.take(keys, holder, () -> unlockInTurn(keys, holder));
    }

    private CompletableFuture<Void> unlockInTurn(LockKeys keys, Holder holder) {
        Hold hold = holds.get(keys, holder.id());
        if (hold == null) {
            throw new IllegalMonitorStateException("Lock '" + keys.name() + "' is not held by " + holder.describe());
        }
        if (hold.lost()) {
            holds.remove(hold);
            throw lost(keys, holder);
        }
        if (hold.count() > hold.stored() && hold.fixedLeaseEnded()) {
            // a level counted in the client, on a lease the local clock saw end: the loss is known, as isLost() says
            holds.remove(hold);
            if (hold.markLost()) {
                lossReporter.accept(hold);
            }
            throw lost(keys, holder);
        }
        return unlock(keys, hold).thenApply(held -> {
            if (!held) {
                throw lost(keys, holder);
            }
            return null;
        });
    }

    private static LockLostException lost(LockKeys keys, Holder holder) {
        return new LockLostException(keys.name(), keys.lock(), "Lock '" + keys.name() + "' was lost before " + holder.describe()
                + " released it: its lease ran out or it was force-unlocked, so another holder may have run meanwhile");
    }

    /**
     * Gives back one level of {@code hold} of lock {@code keys}, already checked to be held: the last one is handed
     * to a local waiter where the lock's kind allows, or released.
     *
     * @return completes with false if Redis no longer had this hold: it is then reported lost
     */
    public CompletableFuture<Boolean> unlock(LockKeys keys, Hold hold) {
        int depth = hold.count();
        if (depth > hold.stored()) {
            hold.count(depth - 1); // a level re-entered locally: Redis never counted it
            return CompletableFuture.completedFuture(true);
        }
        int before = hold.stored();
        if (before != 1) {
            return releaseLevel(keys, hold, depth, before);
        }
        // stops renewal before the release (or the hand-off) runs; the hold is still listed as held until it ends
        holds.removeForRelease(hold);
        CompletableFuture<Boolean> ended;
        try {
            CompletableFuture<HandOff.Outcome> handedOn = keys.kind().handsOff()
                    ? handOff.handOn(keys, hold)
                    : CompletableFuture.completedFuture(HandOff.Outcome.NOT_TRIED);
            ended = handedOn.thenCompose(outcome -> outcome != HandOff.Outcome.NOT_TRIED
                    ? CompletableFuture.completedFuture(outcome == HandOff.Outcome.DONE)
                    : releaseLevel(keys, hold, depth, before));
        }
        catch (RuntimeException | Error ex) {
            ended = CompletableFuture.failedFuture(ex);
        }
        return ended.whenComplete((held, failure) -> holds.released(hold));
    }

    /**
     * Gives back one level of {@code holder}'s hold of lock {@code keys} in the owner's turn, if it has one not
     * known lost: a level taken for a wait whose caller cancelled it meanwhile, which nobody else will release.
     */
    CompletableFuture<Boolean> giveBackUnwanted(LockKeys keys, Holder holder) {
        return turns.take(keys, holder, () -> {
            Hold hold = holds.get(keys, holder.id());
            return hold != null && !hold.lost() ? unlock(keys, hold) : CompletableFuture.completedFuture(true);
        });
    }

    /**
     * Releases in Redis the hold a local releaser handed to {@code holder}'s wait after the client closed, if the
     * client still records it; {@code unlock()} refuses on a closed client.
     */
    CompletableFuture<?> giveBackHandedOver(LockKeys keys, Holder holder) {
        Hold handed = holds.get(keys, holder.id());
        return handed != null && holds.remove(handed) ? releaseFirst(keys, handed)
                : CompletableFuture.completedFuture(null);
    }

    /**
     * Releases {@code hold} of lock {@code keys}, a first hold, in Redis alone: for a hold given back once the client
     * closed, which then forgets its holds and refuses {@code unlock()}.
     */
    public CompletableFuture<Long> releaseFirst(LockKeys keys, Hold hold) {
        return scripts.release(keys, hold, 1);
    }

    /** Sends the release of one level of {@code hold}, of {@code before} that Redis counts. */
    private CompletableFuture<Boolean> releaseLevel(LockKeys keys, Hold hold, int depth, int before) {
        return scripts.release(keys, hold, before).handle((left, failure) -> {
            if (failure != null) {
                // the level of nesting ends all the same: the last release frees the hold whatever count is left
                hold.stored(before - 1);
                hold.count(depth - 1);
                throw Waits.rethrown(failure);
            }
            if (left < 0) {
                holds.remove(hold);
                if (hold.markLost()) {
                    lossReporter.accept(hold); // found by asking Redis: told to the listeners once, too
                }
                return false;
            }
            if (left > 0) {
                hold.stored((int) (long) left);
                // the levels Redis gave back come off the depth: never a level fewer than Redis still counts
                hold.count(Math.max((int) (long) left, depth - (before - (int) (long) left)));
            }
            return true;
        });
    }
}
