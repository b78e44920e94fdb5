package io.github.relock.core.testing;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * Subscribers of lock channels once a client let them go: a client keeps a lock's release channel 500 ms after its
 * last waiter of that lock left, so a test that checks nothing is left waits for that, up to 3 s.
 */
public final class Subscribers {

    private static final long WAIT_MILLIS = 3_000;
    private static final long POLL_MILLIS = 20;

    private Subscribers() {
    }

    /** The subscribers of every lock's release channel right now (the clients' anchor channels left out). */
    public static long ofReleaseChannels(RedisCommands<String, String> redis) {
        String[] channels = redis.pubsubChannels().stream().filter(channel -> channel.contains("released"))
                .toArray(String[]::new);
        return channels.length == 0 ? 0
                : redis.pubsubNumsub(channels).values().stream().mapToLong(Long::longValue).sum();
    }

    /** The subscribers of {@code channels} ({@code PUBSUB NUMSUB}, added up) once they are 0, or after 3 s. */
    public static long onceIdle(RedisCommands<String, String> redis, String... channels) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        long subscribers;
        while ((subscribers = redis.pubsubNumsub(channels).values().stream().mapToLong(Long::longValue).sum()) > 0
                && System.nanoTime() < deadline) {
            Thread.sleep(POLL_MILLIS);
        }
        return subscribers;
    }

    /** The channels with subscribers ({@code PUBSUB CHANNELS}) once all are {@code kept}, or as they are after 3 s. */
    public static List<String> channelsOnceIdle(RedisCommands<String, String> redis, Predicate<String> kept)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        List<String> channels;
        while (!(channels = redis.pubsubChannels()).stream().allMatch(kept) && System.nanoTime() < deadline) {
            Thread.sleep(POLL_MILLIS);
        }
        return channels;
    }
}
