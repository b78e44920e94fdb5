package io.github.relock.core.internal.kind;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

import io.github.relock.core.internal.command.AcquireReply;
import io.github.relock.core.internal.command.Encoding;
import io.github.relock.core.internal.command.KeyNames;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.command.LuaScript;
import io.github.relock.core.internal.command.ScriptCall;

/**
 * The fair lock: an exclusive lock whose waiters form a line in Redis, in the order Redis received their
 * first attempts (see {@code line.lua}). A free lock goes to the head of the line only, and a release names
 * the head, so that only that waiter wakes. A waiter that stops waiting leaves the line at once; one that
 * dies keeps its place for at most {@link #PLACE_MILLIS}.
 */
public final class FairKind implements LockKind {

    /** How long a waiter's place is kept after its last attempt; waiters try again every third of it. */
    static final long PLACE_MILLIS = 3_000;
    private static final byte[] PLACE = Encoding.bytes(PLACE_MILLIS);
    private static final byte[] NO_PLACE = Encoding.bytes(0);

    private final byte[] line;
    private final byte[] places;
    /** The plain lock of the same name and its fencing counter: a first acquisition refuses while it is held. */
    private final byte[] plainLock;
    private final byte[] plainFence;

    private FairKind(String line, String places, LockKeys plain) {
        this.line = line.getBytes(StandardCharsets.UTF_8);
        this.places = places.getBytes(StandardCharsets.UTF_8);
        this.plainLock = plain.lockBytes();
        this.plainFence = plain.fenceBytes();
    }

    /** The keys of fair lock {@code name}: {@code prefix{name}:fair} and companions, in the lock's hash tag. */
    public static LockKeys keys(String prefix, String name) {
        LockKeys plain = LockKeys.of(prefix, name);
        String hash = plain.lock() + LockKeys.FAIR_SUFFIX;
        return new LockKeys(prefix, name, LockKeys.FAIR_SUFFIX, LockKeys.RELEASED,
                new FairKind(hash + ":line", hash + ":places", plain));
    }

    @Override
    public CompletableFuture<AcquireReply> acquire(LockCommands commands, KeyNames keys, byte[] field, long leaseMillis,
            int holdsBefore, long lengthens, boolean willWait, long givenAbove) {
        return commands.runner().evalAsync(LuaScript.FAIR_ACQUIRE, 6, keys.lockBytes(), keys.fenceBytes(), line, places,
                plainLock, plainFence, field, Encoding.bytes(leaseMillis), Encoding.bytes(holdsBefore),
                commands.fenceRetention(), willWait ? PLACE : NO_PLACE).thenApply(AcquireReply::of);
    }

    @Override
    public CompletableFuture<Long> release(LockCommands commands, KeyNames keys, byte[] field, byte[] token,
            int holdsBefore) {
        return commands.runner().evalAsync(LuaScript.FAIR_RELEASE, 4, keys.lockBytes(), keys.fenceBytes(), line, places,
                field, token, Encoding.bytes(holdsBefore), keys.channelBytes(), commands.fenceRetention());
    }

    @Override
    public ScriptCall gaveUp(KeyNames keys, byte[] field) {
        return new ScriptCall(LuaScript.FAIR_LEAVE, 4, keys.lockBytes(), keys.fenceBytes(), line, places, field,
                keys.channelBytes());
    }

    /** The local hand-off moves the lock only to the head of the line (transfer.lua checks), so nobody is passed over. */
    @Override
    public boolean handsOff() {
        return true;
    }

    @Override
    public CompletableFuture<Long> transfer(LockCommands commands, KeyNames keys, String ownerId, long fencingToken,
            String newOwner, long leaseMillis, boolean turnUsedUp) {
        return commands.runner().evalAsync(LuaScript.FAIR_TRANSFER, 4, keys.lockBytes(), keys.fenceBytes(), line, places,
                Encoding.bytes(ownerId), Encoding.bytes(fencingToken), Encoding.bytes(newOwner),
                Encoding.bytes(leaseMillis), keys.channelBytes(), Encoding.bytes(0), commands.fenceRetention());
    }

    @Override
    public WakeUp wakeUp() {
        return WakeUp.NAMED;
    }
}
