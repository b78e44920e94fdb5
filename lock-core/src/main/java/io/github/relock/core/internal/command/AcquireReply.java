package io.github.relock.core.internal.command;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What {@code acquire.lua} answered.
 *
 * @param holds  the owner's hold count after the call; 0 busy; -1 the owner's earlier hold is gone; -2 the
 *               other kind of lock (fair for a plain one, plain for a fair one) of the same name is held
 * @param value  the new fencing token (0 on re-entry) when acquired, the holder's remaining lease in
 *               ms when busy
 * @param tokenFloor when busy, for a kind whose releases give waiters holds ({@code rw-acquire.lua}): a hold
 *               given to this waiter after this attempt has a greater fencing token; 0 otherwise
 */
public record AcquireReply(long holds, long value, long tokenFloor) {

    public AcquireReply(long holds, long value) {
        this(holds, value, 0);
    }

    /**
     * Taken, but fewer replicas than required acknowledged it, so it was given back: not acquired, and
     * worth trying again at once (a waiting caller does; each attempt waits for the replicas again).
     */
    public static AcquireReply notAcknowledged() {
        return new AcquireReply(0, 0);
    }

    /** The reply of {@code acquire.lua}, or null if there was none (inside MULTI or a pipeline). */
    public static @Nullable AcquireReply of(@Nullable List<Object> result) {
        return result == null ? null : new AcquireReply(Encoding.asLong(result.get(0)), Encoding.asLong(result.get(1)),
                result.size() > 2 ? Encoding.asLong(result.get(2)) : 0);
    }

    public boolean acquired() {
        return holds > 0;
    }

    public boolean holdGone() {
        return holds == -1;
    }

    /** The lock of the same name is held as the other kind (see {@code acquire.lua}). */
    public boolean otherKindHeld() {
        return holds == -2;
    }
}
