package io.github.relock.core.internal.kind;

import java.util.concurrent.CompletableFuture;

import io.github.relock.core.internal.command.AcquireReply;
import io.github.relock.core.internal.command.KeyNames;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.ScriptCall;

/** The exclusive reentrant lock: one owner at a time; see {@code acquire.lua} and {@code release.lua}. */
final class ExclusiveKind implements LockKind {

    static final ExclusiveKind INSTANCE = new ExclusiveKind();

    private ExclusiveKind() {
    }

    @Override
    public CompletableFuture<AcquireReply> acquire(LockCommands commands, KeyNames keys, byte[] field, long leaseMillis,
            int holdsBefore, long lengthens, boolean willWait, long givenAbove) {
        return commands.acquire(keys, field, leaseMillis, holdsBefore, lengthens, willWait);
    }

    @Override
    public CompletableFuture<Long> release(LockCommands commands, KeyNames keys, byte[] field, byte[] token,
            int holdsBefore) {
        return commands.release(keys, field, token, holdsBefore);
    }

    /** The client leaves the lock's turns: a freed lock is no longer kept for it (see turn-leave.lua). */
    @Override
    public ScriptCall gaveUp(KeyNames keys, byte[] field) {
        return LockCommands.leaveTurns(keys, field);
    }

    /** The turns are the client's, not one owner's: only its last waiter of the lock gives up its place. */
    @Override
    public boolean queuesPerClient() {
        return true;
    }

    @Override
    public boolean handsOff() {
        return true;
    }
}
