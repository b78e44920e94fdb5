package io.github.relock.core.internal.hold;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.kind.LockKind;

/**
 * Who takes or gives back a hold in one call: the owner (a thread of the client, or an explicit owner),
 * the thread's name for diagnostics, and how messages name it.
 *
 * @param owner  the owner id and its encoded form
 * @param thread the calling thread's name for a thread owner; null for an explicit owner
 */
public record Holder(OwnerIds.Owner owner, @Nullable String thread) {

    /** {@code owner} as the holder of that kind of lock: its hold's field in Redis (see {@link LockKind#field}). */
    public static Holder of(LockKeys keys, OwnerIds.Owner owner, @Nullable String thread) {
        String field = keys.kind().field(owner.id());
        return new Holder(field.equals(owner.id()) ? owner : new OwnerIds.Owner(field), thread);
    }

    public String id() {
        return owner.id();
    }

    public byte[] bytes() {
        return owner.bytes();
    }

    /** "thread 'main' (owner 'c:1')" or "owner 'c:owner-3'". */
    public String describe() {
        return thread != null ? "thread '" + thread + "' (owner '" + owner.id() + "')" : "owner '" + owner.id() + "'";
    }
}
