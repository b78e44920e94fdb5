package io.github.relock.core.internal.hold;

import java.util.Arrays;

import io.github.relock.core.internal.command.KeyNames;

/**
 * A hold's key in the {@link HoldRegistry} (and where else a lock and owner pair is looked up): lock key and
 * owner id. It shares the lock key's encoded form with the {@link KeyNames} it came from.
 */
public final class HoldId {

    private final byte[] lockKey;
    private final String ownerId;
    private final int hash;

    public HoldId(KeyNames keys, String ownerId) {
        this.lockKey = keys.lockBytes();
        this.ownerId = ownerId;
        this.hash = 31 * Arrays.hashCode(lockKey) + ownerId.hashCode();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HoldId id && hash == id.hash && Arrays.equals(lockKey, id.lockKey)
                && ownerId.equals(id.ownerId);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
