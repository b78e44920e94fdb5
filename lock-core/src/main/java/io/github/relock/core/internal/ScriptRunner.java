package io.github.relock.core.internal;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.PoolException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.UnsupportedRedisDriverException;

/**
 * Runs the lock's scripts on connections from the factory: EVALSHA, falling back to EVAL once when the
 * server has not seen the script (a restart, a failover), and sending again a script that a migrating
 * Redis Cluster slot refused. Also the one place that knows whether the connections are cluster ones.
 */
final class ScriptRunner {

    /** Attempts and pause for a script refused with TRYAGAIN during a slot migration: up to 2 s. */
    static final int TRYAGAIN_ATTEMPTS = 40;
    static final long TRYAGAIN_PAUSE_MILLIS = 50;

    private final RedisConnectionFactory factory;
    /**
     * Whether releases are announced with SPUBLISH: decided as {@link ReleaseSubscriptions} decides where to
     * listen (a cluster-aware Lettuce factory), so a factory that wraps one announces and listens classically.
     */
    private final boolean sharded;
    /** Whether the factory gives cluster connections; null until a connection has told. */
    private volatile @Nullable Boolean cluster;

    ScriptRunner(RedisConnectionFactory factory) {
        this.factory = factory;
        this.sharded = ShardedPubSubConnection.isCluster(factory);
        try {
            // the one connection opened at build: it also shows what a wrapping factory's driver is
            query(connection -> {
                RedisDriverCheck.requireLettuceInside(factory, connection);
                return null;
            });
        }
        catch (UnsupportedRedisDriverException ex) {
            throw ex;
        }
        catch (RuntimeException ex) {
            // Redis is down at start-up (or the pool is exhausted): the first connection that opens tells
        }
    }

    RedisConnectionFactory factory() {
        return factory;
    }

    /** True if known to be a cluster, false if known not to be, null while Redis has not been reached yet. */
    @Nullable Boolean cluster() {
        return cluster;
    }

    /** Runs a call that must answer: no reply means MULTI or a pipeline swallowed it, which the lock cannot use. */
    <T> T run(Function<RedisConnection, @Nullable T> call) {
        T result = query(call);
        if (result == null) {
            throw new IllegalStateException("Redis returned no reply; relock does not run inside MULTI or a pipeline");
        }
        return result;
    }

    <T> @Nullable T query(Function<RedisConnection, @Nullable T> call) {
        try (RedisConnection connection = connection()) {
            if (cluster == null) {
                cluster = connection instanceof RedisClusterConnection;
            }
            return call.apply(connection);
        }
    }

    /**
     * A connection from the factory. A pool that cannot hand one out throws Spring's {@link PoolException},
     * which is not a {@link DataAccessException}: it becomes one here, so that every caller treats it as Redis
     * not answering (nothing was sent, so a release may safely be sent again).
     */
    private RedisConnection connection() {
        try {
            return factory.getConnection();
        }
        catch (PoolException ex) {
            throw new RedisConnectionFailureException("Could not get a Redis connection: " + ex.getMessage(), ex);
        }
    }

    /**
     * Runs a script. While Redis Cluster migrates the lock's slot, a node refuses a script whose keys are
     * only partly there with {@code TRYAGAIN} (a lock's fencing key outlives its hash, so taking a freed
     * lock hits this for the whole migration): the script did not run, so it is sent again after a
     * pause, for up to {@value #TRYAGAIN_ATTEMPTS} x {@value #TRYAGAIN_PAUSE_MILLIS} ms.
     */
    <T> @Nullable T eval(RedisConnection connection, LuaScript<T> script, int numKeys, byte[]... keysAndArgs) {
        // on a cluster of a Lettuce factory, announced in the lock's shard only, where ShardedPubSubConnection listens
        return evalAnnounced(connection, sharded && connection instanceof RedisClusterConnection ? script.onCluster()
                : script, numKeys, keysAndArgs);
    }

    /**
     * Sends a script and waits at most {@code waitMillis} for its reply (0: not at all), for calls whose outcome
     * nobody waits for: a closed client's waiter leaving its place. Best effort; a failure is not reported.
     */
    void sendBriefly(LuaScript<?> script, long waitMillis, int numKeys, byte[]... keysAndArgs) {
        try (RedisConnection connection = connection()) {
            LuaScript<?> announcing = sharded && connection instanceof RedisClusterConnection ? script.onCluster() : script;
            if (!BriefSend.send(connection, announcing, waitMillis, numKeys, keysAndArgs)) {
                evalAnnounced(connection, announcing, numKeys, keysAndArgs); // no Lettuce API to hand: an ordinary call
            }
        }
    }

    /** As {@link #eval}, announcing with the script as given (classic pub/sub). */
    static <T> @Nullable T evalAnnounced(RedisConnection connection, LuaScript<T> script, int numKeys,
            byte[]... keysAndArgs) {
        for (int attempt = 1; ; attempt++) {
            try {
                return evalOnce(connection, script, numKeys, keysAndArgs);
            }
            catch (DataAccessException ex) {
                if (attempt == TRYAGAIN_ATTEMPTS || !hasMessage(ex, "TRYAGAIN") || !Interrupts.sleep(TRYAGAIN_PAUSE_MILLIS)) {
                    throw ex;
                }
            }
        }
    }

    private static <T> @Nullable T evalOnce(RedisConnection connection, LuaScript<T> script, int numKeys,
            byte[]... keysAndArgs) {
        try {
            return connection.scriptingCommands().evalSha(script.getSha1(), script.returnType(), numKeys, keysAndArgs);
        }
        catch (DataAccessException ex) {
            if (!hasMessage(ex, "NOSCRIPT")) {
                throw ex;
            }
            // EVAL also caches the script, so the next EVALSHA finds it
            return connection.scriptingCommands().eval(script.sourceBytes(), script.returnType(), numKeys, keysAndArgs);
        }
    }

    private static boolean hasMessage(Throwable ex, String text) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(text)) {
                return true;
            }
        }
        return false;
    }
}
