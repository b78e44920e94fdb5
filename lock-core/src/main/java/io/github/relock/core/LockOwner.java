package io.github.relock.core;

import java.util.Objects;

/**
 * An owner that is not a thread: work that acquires on one thread and releases on another
 * (a {@code CompletableFuture} chain, reactive code, virtual threads handing work over) uses one
 * {@code LockOwner} from start to end. Create it with {@link RedisLockClient#newOwner()}.
 *
 * <p>Two handles for the same lock name and the same owner share the hold: the second acquisition
 * re-enters. Calls of one owner on one lock may come from several threads, or be several asynchronous
 * calls at once: the client runs them one at a time, so each re-entry and release counts once. Whatever
 * they do under the lock is not excluded from each other, as for nested calls of one thread.
 */
public final class LockOwner {

    private final String id;

    LockOwner(String id) {
        this.id = id;
    }

    /** The owner id written into the lock hash: the client id, a colon, and a unique suffix. */
    public String id() {
        return id;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockOwner owner && owner.id.equals(id);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(id);
    }

    @Override
    public String toString() {
        return "LockOwner[" + id + "]";
    }
}
