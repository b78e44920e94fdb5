package io.github.relock.core.internal;

/** The exclusive reentrant lock: one owner at a time; see {@code acquire.lua} and {@code release.lua}. */
final class ExclusiveKind implements LockKind {

    static final ExclusiveKind INSTANCE = new ExclusiveKind();

    private ExclusiveKind() {
    }

    @Override
    public AcquireReply acquire(LockCommands commands, LockKeys keys, byte[] field, long leaseMillis, int holdsBefore,
            boolean lengthensLease, boolean willWait) {
        return commands.acquire(keys, field, leaseMillis, holdsBefore, lengthensLease, willWait);
    }

    @Override
    public long release(LockCommands commands, Hold hold, int holdsBefore) {
        return commands.release(hold.keys(), hold.ownerBytes(), hold.tokenBytes(), holdsBefore);
    }

    @Override
    public boolean handsOff() {
        return true;
    }
}
