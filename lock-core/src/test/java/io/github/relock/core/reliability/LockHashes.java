package io.github.relock.core.reliability;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.relock.core.RedisLockClient;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Which locks are still in Redis, by name. Only the lock hash counts: a lock's fencing counter outlives
 * its hash by design (it is kept for the fencing-token retention), so it is not a lock left behind.
 */
final class LockHashes {

    private LockHashes() {
    }

    /** The Redis keys of the lock hashes that exist among {@code names}, as {@code client} names them. */
    static List<String> left(RedisCommands<String, String> redis, RedisLockClient client, List<String> names) {
        return names.stream().map(name -> client.redisKeys(name).lock()).filter(key -> redis.exists(key) > 0)
                .toList();
    }

    /** Every lock hash in this Redis (a lock is a hash; nothing else the tests write is). */
    static List<String> all(RedisCommands<String, String> redis) {
        return redis.keys("*").stream().filter(key -> redis.type(key).equals("hash")).toList();
    }

    /**
     * Subscribers to the release channels of {@code names} ({@code PUBSUB NUMSUB}, summed) once they are 0, or
     * when {@code millis} have passed: an unsubscribe may still be on its way when the last waiter returns.
     */
    static long subscribers(RedisCommands<String, String> redis, RedisLockClient client, List<String> names,
            long millis) throws InterruptedException {
        String[] channels = names.stream().map(name -> client.redisKeys(name).releaseChannel()).toArray(String[]::new);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        long subscribers;
        while ((subscribers = redis.pubsubNumsub(channels).values().stream().mapToLong(Long::longValue).sum()) > 0
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return subscribers;
    }

    /** {@code prefix + 0} to {@code prefix + (count - 1)}. */
    static List<String> numbered(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + i).toList();
    }
}
