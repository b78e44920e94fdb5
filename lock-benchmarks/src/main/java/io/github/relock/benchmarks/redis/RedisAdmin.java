package io.github.relock.benchmarks.redis;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.relock.benchmarks.libraries.RedisTarget;
import io.github.relock.benchmarks.report.WaitersResult.Subscriptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/** The harness's own connection: command statistics, key counts, cleanup between runs. */
public final class RedisAdmin implements AutoCloseable {

    private final RedisTarget target;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    public RedisAdmin(RedisTarget target) {
        this.target = target;
        this.client = RedisClient.create(RedisURI.create(target.host(), target.port()));
        this.connection = client.connect();
        this.redis = connection.sync();
    }

    public RedisTarget target() {
        return target;
    }

    public CommandStats commandStats() {
        return CommandStats.parse(redis.info("commandstats"));
    }

    public String info(String section) {
        return redis.info(section);
    }

    public long dbSize() {
        return redis.dbsize();
    }

    /** How many of {@code keys} exist right now. */
    public long existing(String... keys) {
        return redis.exists(keys);
    }

    /** Connections in pub/sub mode right now: CLIENT LIST entries with a subscription or the {@code P} flag. */
    public int pubSubConnections() {
        int count = 0;
        for (String line : redis.clientList().split("\r?\n")) {
            if (isPubSub(line)) {
                count++;
            }
        }
        return count;
    }

    /** One CLIENT LIST line: subscribed to a channel, pattern or shard channel, or flagged as pub/sub. */
    static boolean isPubSub(String clientListLine) {
        for (String field : clientListLine.strip().split(" ")) {
            int eq = field.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String name = field.substring(0, eq);
            String value = field.substring(eq + 1);
            if ((name.equals("sub") || name.equals("psub") || name.equals("ssub")) && !value.equals("0")) {
                return true;
            }
            if (name.equals("flags") && value.contains("P")) {
                return true;
            }
        }
        return false;
    }

    /** The server's subscriptions right now: PUBSUB CHANNELS, the NUMSUB of each, PUBSUB NUMPAT. */
    public Subscriptions subscriptions() {
        List<String> channels = redis.pubsubChannels();
        long subscribers = channels.isEmpty() ? 0
                : redis.pubsubNumsub(channels.toArray(String[]::new)).values().stream().mapToLong(Long::longValue).sum();
        return new Subscriptions(channels.size(), subscribers, redis.pubsubNumpat());
    }

    public RedisCommands<String, String> commands() {
        return redis;
    }

    /** Drops every key, so one run's leftovers (expired-later keys, counters) cannot touch the next. */
    public void flushAll() {
        redis.flushall();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
