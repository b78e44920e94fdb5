package io.github.relock.core.internal.kind;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.command.AcquireReply;
import io.github.relock.core.internal.command.KeyNames;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.ScriptCall;

/**
 * What sets one kind of lock apart: its scripts and the Redis hash field that records an owner's holds. The
 * wait, the watchdog, the holds and the handle's API are the same for every kind. The defaults are the
 * exclusive lock's, whose hash a fair lock shares.
 */
public interface LockKind {

    /** The hash field that records the holds of owner {@code ownerId}: the owner id itself, unless a kind keeps two. */
    default String field(String ownerId) {
        return ownerId;
    }

    /** The owner id whose holds {@code field} records: the inverse of {@link #field}. */
    default String owner(String field) {
        return field;
    }

    /**
     * One acquisition round trip; the future fails with a {@code DataAccessException}.
     *
     * @param field     the hold's field, UTF-8
     * @param lengthens -1, or a re-entry that lengthens the lease (see {@link LockCommands#acquire}): its floor
     * @param willWait  whether the caller will wait if the lock is busy (a kind may then queue it)
     * @param givenAbove for a kind whose releases give waiters their holds: the {@link AcquireReply#tokenFloor()} of
     *                  this wait's last attempt that found the lock busy, 0 if none did; a hold a release gave this
     *                  owner is taken up only if its token is above it (else it is from before this wait)
     */
    CompletableFuture<AcquireReply> acquire(LockCommands commands, KeyNames keys, byte[] field, long leaseMillis,
            int holdsBefore, long lengthens, boolean willWait, long givenAbove);

    /**
     * Gives back one of {@code holdsBefore} of the hold {@code field} has with {@code token}: the holds left, or -1
     * if this hold is no longer in Redis. The future fails with a {@code DataAccessException}.
     */
    CompletableFuture<Long> release(LockCommands commands, KeyNames keys, byte[] field, byte[] token, int holdsBefore);

    /**
     * Ends the hold {@code field} has with {@code token} as a loss, whatever its count; false if it was gone already.
     * The future fails with a {@code DataAccessException}.
     */
    default CompletableFuture<Boolean> forceRelease(LockCommands commands, KeyNames keys, byte[] field, byte[] token) {
        return commands.forceRelease(keys, field, token);
    }

    /**
     * Ends whichever hold {@code field} has, whatever its count: the hold an acquisition whose reply never came may
     * have taken (see {@link LockCommands#giveBackUnknown}). False if there was none.
     */
    default CompletableFuture<Boolean> giveBackUnknown(LockCommands commands, KeyNames keys, byte[] field) {
        return commands.giveBackUnknown(keys, field);
    }

    default int holdCount(LockCommands commands, KeyNames keys, String field) {
        return commands.holdCount(keys, field);
    }

    /** Whether anyone holds the lock. */
    default boolean isLocked(LockCommands commands, KeyNames keys) {
        return commands.exists(keys);
    }

    /** How long the lease of {@code field}'s hold has left, or the lock's if that holds nothing; 0: free. */
    default long remainingLeaseMillis(LockCommands commands, KeyNames keys, String field) {
        return commands.remainingLeaseMillis(keys);
    }

    /** Ends the lock whoever holds it; true if it was held. */
    default boolean forceUnlock(LockCommands commands, KeyNames keys) {
        return commands.forceUnlock(keys);
    }

    /**
     * Refuses, before any round trip, an acquisition by {@code ownerId} that could never succeed; nothing to
     * refuse for most kinds.
     *
     * @throws IllegalMonitorStateException if waiting could only deadlock
     */
    default void check(HeldHere holds, KeyNames keys, String ownerId, String describedOwner) {
    }

    /** What {@link #check} may ask of the holds this client keeps. */
    interface HeldHere {

        /** Whether this client holds {@code keys} under hash field {@code field}, as far as it knows. */
        boolean heldHere(KeyNames keys, String field);
    }

    /**
     * What a caller that waited, did not get the lock and no longer wants it sends to undo its waiting (a claim,
     * a place in line); null if nothing.
     */
    default @Nullable ScriptCall gaveUp(KeyNames keys, byte[] field) {
        return null;
    }

    /**
     * How long a hold that a release gave a waiter lasts at least, counted from the waiter's last attempt, for a
     * kind whose releases give holds that a waiter takes up from the announcement alone ({@link WakeUp#GIVEN}); 0
     * for the others.
     */
    default long givenHoldMillis() {
        return 0;
    }

    /**
     * Whether what waiting left ({@link #gaveUp}) belongs to the whole client rather than to one owner: it is then
     * undone only when no thread of the client waits for the lock any more.
     */
    default boolean queuesPerClient() {
        return false;
    }

    /** Whether a last release may hand the lock straight to a local waiter (see {@code HandOff}). */
    boolean handsOff();

    /**
     * Moves the last hold {@code ownerId} has with {@code fencingToken} to the local waiter {@code newOwner}, in one
     * step (transfer.lua), if this kind's rule for who goes next lets it: the new owner's fencing token, 0 if the
     * lock went to another waiter instead, -1 if the hold is no longer in Redis. Only for kinds that
     * {@link #handsOff()}. The future fails with a {@code DataAccessException}.
     *
     * @param turnUsedUp whether this client's turn on the lock is used up (see {@code ClientTurn})
     */
    default CompletableFuture<Long> transfer(LockCommands commands, KeyNames keys, String ownerId, long fencingToken,
            String newOwner, long leaseMillis, boolean turnUsedUp) {
        return commands.transfer(keys, ownerId, fencingToken, newOwner, leaseMillis, turnUsedUp);
    }

    /** Whom of the local waiters a release announcement wakes. */
    default WakeUp wakeUp() {
        return WakeUp.ONE;
    }
}
