package io.github.relock.benchmarks.redis;

import java.util.concurrent.TimeUnit;

import io.github.relock.benchmarks.libraries.RedisTarget;
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
