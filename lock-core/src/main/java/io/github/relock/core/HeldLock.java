package io.github.relock.core;

import java.time.Instant;

/**
 * A lock this client holds, as the client last saw it (no Redis round trip). For diagnostics, such as
 * an actuator endpoint.
 *
 * @param name         the lock's name
 * @param key          the Redis key of the lock
 * @param ownerId      the owner id in the lock hash
 * @param ownerThread  the name of the owning thread, or {@code null} for an explicit {@link LockOwner}
 * @param holdCount    the owner's hold count
 * @param fencingToken the token of this hold
 * @param acquiredAt   when the first hold was taken
 * @param leaseExpiresAt when the lease ends unless renewed
 * @param watchdog     whether the watchdog renews it
 */
public record HeldLock(String name, String key, String ownerId, @org.jspecify.annotations.Nullable String ownerThread,
                       int holdCount, long fencingToken, Instant acquiredAt, Instant leaseExpiresAt, boolean watchdog) {
}
