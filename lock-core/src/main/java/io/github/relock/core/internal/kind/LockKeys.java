package io.github.relock.core.internal.kind;

import io.github.relock.core.internal.command.KeyNames;

/**
 * The Redis names of one lock with the kind of lock they belong to: what a lock's handle and its holds keep, so
 * that each call finds the kind's scripts and hash layout. The commands take the names alone ({@link KeyNames}).
 * Two keys are equal when their names are: a lock's names fix its kind.
 */
public final class LockKeys extends KeyNames {

    private final LockKind kind;

    /**
     * The keys {@code prefix{name}lockSuffix} (the hash), its {@code :fence} and its channel.
     *
     * @param lockSuffix    after the hash tag, e.g. {@code ":fair"}; empty for an exclusive lock
     * @param channelSuffix after the lock key: where a release is announced, e.g. {@link #RELEASED}; a shared
     *                      constant, since every hold keeps it
     * @param kind          the kind of lock these keys belong to: its scripts and its hash layout
     */
    LockKeys(String prefix, String name, String lockSuffix, byte[] channelSuffix, LockKind kind) {
        super(prefix, name, lockSuffix, channelSuffix);
        this.kind = kind;
    }

    private LockKeys(LockKeys keys) {
        super(keys);
        this.kind = keys.kind;
    }

    /** The same keys without the companions built so far: what a hold keeps. */
    public LockKeys slim() {
        return companionsBuilt() ? new LockKeys(this) : this;
    }

    /**
     * The keys of lock {@code name}: {@code prefix{name}}, {@code prefix{name}:fence} and
     * {@code prefix{name}:released}. The name goes in the hash tag with {@code %} and {@code }} escaped
     * ({@code %25}, {@code %7D}), so the tag is never empty, ends where the name ends (every key of the lock in
     * one Cluster slot), and two names never share a key.
     */
    public static LockKeys of(String prefix, String name) {
        return new LockKeys(prefix, name, "", RELEASED, ExclusiveKind.INSTANCE);
    }

    public LockKind kind() {
        return kind;
    }
}
