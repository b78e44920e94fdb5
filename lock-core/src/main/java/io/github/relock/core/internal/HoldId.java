package io.github.relock.core.internal;

/** A hold's key in the {@link HoldRegistry}: lock key and owner id. Each hold keeps its own, so only a lookup makes one. */
final class HoldId {

    private final String lockKey;
    private final String ownerId;
    private final int hash;

    HoldId(String lockKey, String ownerId) {
        this.lockKey = lockKey;
        this.ownerId = ownerId;
        this.hash = 31 * lockKey.hashCode() + ownerId.hashCode();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HoldId id && hash == id.hash && lockKey.equals(id.lockKey) && ownerId.equals(id.ownerId);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
