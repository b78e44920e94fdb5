package io.github.relock.core.internal;

/**
 * The Redis names that belong to one lock. The lock name sits in a hash tag so that every key of the
 * lock lands in the same Redis Cluster slot, which is what lets one script touch them all.
 *
 * @param name    the lock's name
 * @param lock    the hash: owner id to hold count, e.g. {@code lock:{order:42}}
 * @param fence   the last fencing token issued, e.g. {@code lock:{order:42}:fence}
 * @param channel where a release is announced, e.g. {@code lock:{order:42}:released}
 */
public record LockKeys(String name, String lock, String fence, String channel) {

    public static LockKeys of(String prefix, String name) {
        String lock = prefix + "{" + name + "}";
        return new LockKeys(name, lock, lock + ":fence", lock + ":released");
    }
}
