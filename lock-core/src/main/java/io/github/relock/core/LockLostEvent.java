package io.github.relock.core;

import java.time.Instant;

/**
 * A lock that its owner thought it held, found gone.
 *
 * @param lockName     the lock's name
 * @param key          the Redis key of the lock
 * @param ownerId      the owner that lost it
 * @param fencingToken the token of the lost hold; writes carrying it should now be refused
 * @param detectedAt   when the client noticed
 */
public record LockLostEvent(String lockName, String key, String ownerId, long fencingToken, Instant detectedAt) {
}
