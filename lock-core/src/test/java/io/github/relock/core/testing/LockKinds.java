package io.github.relock.core.testing;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * The lock of one name in each kind a test runs through, by the kind's short name: {@code plain}, {@code fair},
 * {@code write} and {@code read} (the two sides of the read-write lock of that name).
 */
public final class LockKinds {

    private LockKinds() {
    }

    /** The lock called {@code name} of {@code kind} from {@code client}; an unknown kind is the plain lock. */
    public static ReentrantDistributedLock of(RedisLockClient client, String kind, String name) {
        return switch (kind) {
            case "fair" -> client.getFairLock(name);
            case "write" -> client.getReadWriteLock(name).writeLock();
            case "read" -> client.getReadWriteLock(name).readLock();
            default -> client.getLock(name);
        };
    }
}
