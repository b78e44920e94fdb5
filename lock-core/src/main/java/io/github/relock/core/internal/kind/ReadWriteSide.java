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
 * One side of a read-write lock: readers share it, a writer has it alone, and waiters go in turns by
 * arrival: a waiting writer goes before readers that arrive after it, and readers that waited before a
 * writer go before it, so neither side starves. A release that lets waiters in gives them their holds in the
 * same script (every reader in turn when the write hold ends, else the next writer when the last hold ends), so
 * they wake holding the lock, and take their holds up from the release's announcement, which carries each one's
 * token. Both sides live in one hash (see {@code rw-state.lua}); each hold has its own
 * lease there, so a crashed reader frees its share when its own lease ends.
 */
public final class ReadWriteSide implements LockKind {

    /**
     * How long a waiter's place in the turns lasts unless it tries again: the most a waiter that died holds
     * others back (a writer holds back later readers, a reader later writers).
     */
    static final long CLAIM_MILLIS = 2_000;
    private static final byte[] READ = {'r'};
    private static final byte[] WRITE = {'w'};
    private static final byte[] BOTH = {};
    private static final byte[] NO_CLAIM = Encoding.bytes(0);
    private static final byte[] CLAIM = Encoding.bytes(CLAIM_MILLIS);
    /** After the hash: the channel that wakes readers; writers wake on {@link LockKeys#RELEASED}. */
    private static final byte[] READERS = Encoding.bytes(":released:readers");

    private final boolean writer;
    private final byte[] ended;
    private final byte[] writersChannel;
    private final byte[] readersChannel;

    private ReadWriteSide(boolean writer, String ended, String writersChannel, String readersChannel) {
        this.writer = writer;
        this.ended = ended.getBytes(StandardCharsets.UTF_8);
        this.writersChannel = writersChannel.getBytes(StandardCharsets.UTF_8);
        this.readersChannel = readersChannel.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The two sides of read-write lock {@code name}: {@code prefix{name}:rw} and its companions, in the lock's
     * hash tag (so in its Cluster slot), apart from the keys of an exclusive lock of the same name.
     *
     * @return the read side's keys, then the write side's
     */
    public static LockKeys[] keys(String prefix, String name) {
        String hash = LockKeys.of(prefix, name).lock() + ":rw";
        String writers = hash + ":released";
        String readers = writers + ":readers";
        String ended = hash + ":ended";
        return new LockKeys[] {
                new LockKeys(prefix, name, ":rw", READERS, new ReadWriteSide(false, ended, writers, readers)),
                new LockKeys(prefix, name, ":rw", LockKeys.RELEASED, new ReadWriteSide(true, ended, writers, readers))};
    }

    boolean writer() {
        return writer;
    }

    @Override
    public String field(String ownerId) {
        return writer ? ownerId + ":w" : ownerId;
    }

    @Override
    public String owner(String field) {
        return writer ? field.substring(0, field.length() - 2) : field;
    }

    @Override
    public CompletableFuture<AcquireReply> acquire(LockCommands commands, KeyNames keys, byte[] field, long leaseMillis,
            int holdsBefore, long lengthens, boolean willWait, long givenAbove) {
        byte[] claim = willWait ? CLAIM : NO_CLAIM;
        return commands.runner().evalAsync(LuaScript.RW_ACQUIRE, 2, keys.lockBytes(), keys.fenceBytes(), field,
                Encoding.bytes(leaseMillis), Encoding.bytes(holdsBefore), writer ? WRITE : READ,
                commands.fenceRetention(), claim, Encoding.bytes(givenAbove)).thenApply(AcquireReply::of);
    }

    @Override
    public CompletableFuture<Long> release(LockCommands commands, KeyNames keys, byte[] field, byte[] token,
            int holdsBefore) {
        return release(commands, keys, field, token, Encoding.bytes(holdsBefore));
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(LockCommands commands, KeyNames keys, byte[] field, byte[] token) {
        return release(commands, keys, field, token, Encoding.bytes(0)).thenApply(ended -> ended == 1);
    }

    @Override
    public CompletableFuture<Boolean> giveBackUnknown(LockCommands commands, KeyNames keys, byte[] field) {
        return commands.runner().evalSourceAsync(LuaScript.RW_RELEASE, 3, keys.lockBytes(), ended, keys.fenceBytes(),
                field, LockCommands.ANY_TOKEN, Encoding.bytes(0), writersChannel, readersChannel,
                commands.fenceRetention()).thenApply(done -> done == 1);
    }

    private CompletableFuture<Long> release(LockCommands commands, KeyNames keys, byte[] field, byte[] token,
            byte[] holdsBefore) {
        // the fencing counter: a release that lets waiters in issues their holds' tokens
        return commands.runner().evalAsync(LuaScript.RW_RELEASE, 3, keys.lockBytes(), ended, keys.fenceBytes(), field,
                token, holdsBefore, writersChannel, readersChannel, commands.fenceRetention());
    }

    @Override
    public int holdCount(LockCommands commands, KeyNames keys, String field) {
        return (int) holds(commands, keys, field, "count", side());
    }

    /** Whether this side is held: a read hold exists (read side), or the write hold (write side). */
    @Override
    public boolean isLocked(LockCommands commands, KeyNames keys) {
        return holds(commands, keys, "", "locked", side()) == 1;
    }

    /** The lease of {@code field}'s hold, or if it holds nothing here, the longest of this side's holds. */
    @Override
    public long remainingLeaseMillis(LockCommands commands, KeyNames keys, String field) {
        return holds(commands, keys, field, "lease", side());
    }

    /** Whether either side is held. */
    public boolean eitherLocked(LockCommands commands, KeyNames keys) {
        return holds(commands, keys, "", "locked", BOTH) == 1;
    }

    /** The hash as {@code rw-holds.lua} reads it: only holds whose own lease has not ended count. */
    private static long holds(LockCommands commands, KeyNames keys, String field, String question, byte[] side) {
        return commands.await(commands.runner().evalAsync(LuaScript.RW_HOLDS, 1, keys.lockBytes(),
                Encoding.bytes(field), Encoding.bytes(question), side));
    }

    /** Ends this side's holds only: the write hold, or every read hold. */
    @Override
    public boolean forceUnlock(LockCommands commands, KeyNames keys) {
        return forceUnlock(commands, keys, side());
    }

    /** Ends the holds of both sides. */
    public boolean forceUnlockBoth(LockCommands commands, KeyNames keys) {
        return forceUnlock(commands, keys, BOTH);
    }

    private boolean forceUnlock(LockCommands commands, KeyNames keys, byte[] side) {
        return commands.await(commands.runner().evalAsync(LuaScript.RW_FORCE_UNLOCK, 1, keys.lockBytes(),
                writersChannel, readersChannel, side)) == 1L;
    }

    private byte[] side() {
        return writer ? WRITE : READ;
    }

    /** The write lock is refused to an owner that holds only the read lock: it would wait for itself. */
    @Override
    public void check(HeldHere holds, KeyNames keys, String ownerId, String describedOwner) {
        if (!writer) {
            return;
        }
        // the read hold: same hash, the owner id as field
        if (holds.heldHere(keys, ownerId) && !holds.heldHere(keys, field(ownerId))) {
            throw new IllegalMonitorStateException("Lock '" + keys.name() + "': " + describedOwner + " holds the read "
                    + "lock and asked for the write lock, which would wait for that read hold forever. Release the "
                    + "read lock first, or take the write lock first and the read lock inside it (a downgrade)");
        }
    }

    @Override
    public ScriptCall gaveUp(KeyNames keys, byte[] field) {
        // a writer held readers back, a reader held back writers that came after it
        // and a hold a release gave it that it never took up goes back, waking both sides
        return new ScriptCall(LuaScript.RW_WITHDRAW, 1, keys.lockBytes(), field, writer ? readersChannel : writersChannel,
                writersChannel);
    }

    /** A waiter takes up the hold a release gave it from the announcement, which carries the hold's token. */
    @Override
    public long givenHoldMillis() {
        return CLAIM_MILLIS;
    }

    @Override
    public boolean handsOff() {
        return false; // a hand-off moves one exclusive hold; readers share, and a writer waits for all of them
    }

    /**
     * The waiters the release names, each told its hold's token: the readers it let in (readers behind a waiting
     * writer sleep on), or the writer it gave the write hold to. A release that names nobody (it gave the write hold
     * to no one, a waiter withdrew, or the holds were forced) wakes every waiter of the side, since writers take
     * turns with readers by arrival and the one that can go need not be first in this client's queue.
     */
    @Override
    public WakeUp wakeUp() {
        return WakeUp.GIVEN;
    }
}
