package io.github.relock.core.internal.hold;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.command.Encoding;

/**
 * The owner ids of one client's threads ({@code clientId:threadId}), built once per thread instead of
 * on every lock call, together with the UTF-8 form that the scripts are sent.
 */
public final class OwnerIds {

    /** An owner id and its UTF-8 bytes; the array is shared and must never be modified. */
    public static final class Owner {

        private final String id;
        private final byte[] bytes;

        Owner(String id) {
            this.id = id;
            this.bytes = Encoding.bytes(id);
        }

        public String id() {
            return id;
        }

        public byte[] bytes() {
            return bytes;
        }
    }

    private final String clientId;
    // a thread's id never changes while it lives, so neither does its owner id
    private final ThreadLocal<Owner> perThread = ThreadLocal.withInitial(
            () -> new Owner(this.ownerIdOf(Thread.currentThread())));

    public OwnerIds(String clientId) {
        this.clientId = clientId;
    }

    /** The calling thread's owner. */
    public Owner currentThread() {
        return perThread.get();
    }

    /** An explicit owner (one that is not a thread), or null for none. */
    public static @Nullable Owner explicit(@Nullable String ownerId) {
        return ownerId == null ? null : new Owner(ownerId);
    }

    /**
     * Checks that {@code ownerId} (null: the calling thread's) was made by this client.
     *
     * @throws IllegalArgumentException if another client made it
     */
    public void checkMine(@Nullable String ownerId) {
        if (ownerId != null && !ownerId.startsWith(clientId + ":")) {
            throw new IllegalArgumentException("owner " + ownerId + " was created by another RedisLockClient");
        }
    }

    private String ownerIdOf(Thread thread) {
        return clientId + ":" + thread.getId();
    }
}
