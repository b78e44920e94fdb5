package io.github.relock.core;

/**
 * Where a lock lives in Redis, for operations and tests: look at it with {@code HGETALL}, {@code PTTL},
 * {@code PUBSUB NUMSUB}. Made by {@link RedisLockClient#redisKeys(String)}.
 *
 * @param lock           the hash (field: owner id, value: hold count), e.g. {@code lock:{order:42}}
 * @param fence          the fencing counter, e.g. {@code lock:{order:42}:fence}
 * @param releaseChannel where releases are announced, e.g. {@code lock:{order:42}:released}
 */
public record LockRedisKeys(String lock, String fence, String releaseChannel) {
}
