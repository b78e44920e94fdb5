package io.github.relock.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Every Redis call the lock makes. Scripts run with EVALSHA on a connection from the factory, falling
 * back to EVAL once when the server has not seen the script yet (a restart, a failover).
 */
public final class LockCommands {

    /** Pairs per renewal call: large batches, but no single script that blocks Redis for long. */
    static final int RENEW_BATCH = 256;

    private final RedisConnectionFactory factory;
    private final boolean cluster;

    public LockCommands(RedisConnectionFactory factory) {
        this.factory = factory;
        this.cluster = detectCluster(factory);
    }

    public RedisConnectionFactory connectionFactory() {
        return factory;
    }

    public AcquireReply acquire(LockKeys keys, String ownerId, long leaseMillis, int holdsBefore) {
        List<Object> reply = run(c -> eval(c, LuaScript.ACQUIRE, 2,
                bytes(keys.lock()), bytes(keys.fence()), bytes(ownerId), bytes(leaseMillis), bytes(holdsBefore)));
        return new AcquireReply(asLong(reply.get(0)), asLong(reply.get(1)));
    }

    /** Returns the holds left, or -1 if this hold (owner and token) is no longer in Redis. */
    public long release(LockKeys keys, String ownerId, long fencingToken, int holdsBefore) {
        Long left = run(c -> eval(c, LuaScript.RELEASE, 2, bytes(keys.lock()), bytes(keys.fence()),
                bytes(ownerId), bytes(fencingToken), bytes(holdsBefore), bytes(keys.channel())));
        return left;
    }

    public boolean forceUnlock(LockKeys keys) {
        Long deleted = run(c -> eval(c, LuaScript.FORCE_UNLOCK, 2, bytes(keys.lock()), bytes(keys.fence()),
                bytes(keys.channel())));
        return deleted == 1L;
    }

    /**
     * Renews the leases of {@code holds}, all in one Cluster slot when on a cluster. Returns one flag
     * per hold, in order: true renewed, false no longer held by its owner.
     */
    public List<Boolean> renew(List<Hold> holds, long leaseMillis) {
        byte[][] keysAndArgs = new byte[holds.size() * 3 + 1][];
        int k = 0;
        for (Hold hold : holds) {
            keysAndArgs[k++] = bytes(hold.keys().lock());
            keysAndArgs[k++] = bytes(hold.keys().fence());
        }
        keysAndArgs[k++] = bytes(leaseMillis);
        for (Hold hold : holds) {
            keysAndArgs[k++] = bytes(hold.ownerId());
        }
        List<Object> reply = run(c -> eval(c, LuaScript.RENEW, holds.size() * 2, keysAndArgs));
        List<Boolean> renewed = new ArrayList<>(reply.size());
        for (Object flag : reply) {
            renewed.add(asLong(flag) == 1L);
        }
        return renewed;
    }

    /** Splits holds into renewal batches: by Cluster slot on a cluster, since one script may not cross slots. */
    public List<List<Hold>> renewalBatches(Collection<Hold> holds) {
        Map<Integer, List<Hold>> bySlot = new LinkedHashMap<>();
        for (Hold hold : holds) {
            int slot = cluster ? ClusterSlotHashUtil.calculateSlot(hold.keys().lock()) : 0;
            bySlot.computeIfAbsent(slot, s -> new ArrayList<>()).add(hold);
        }
        List<List<Hold>> batches = new ArrayList<>();
        for (List<Hold> slotHolds : bySlot.values()) {
            for (int from = 0; from < slotHolds.size(); from += RENEW_BATCH) {
                batches.add(slotHolds.subList(from, Math.min(slotHolds.size(), from + RENEW_BATCH)));
            }
        }
        return batches;
    }

    public boolean exists(LockKeys keys) {
        return Boolean.TRUE.equals(query(c -> c.keyCommands().exists(bytes(keys.lock()))));
    }

    public int holdCount(LockKeys keys, String ownerId) {
        byte[] count = query(c -> c.hashCommands().hGet(bytes(keys.lock()), bytes(ownerId)));
        return count == null ? 0 : Integer.parseInt(new String(count, StandardCharsets.UTF_8));
    }

    public long remainingLeaseMillis(LockKeys keys) {
        Long pttl = query(c -> c.keyCommands().pTtl(bytes(keys.lock())));
        return pttl == null ? 0 : Math.max(0, pttl);
    }

    /** Runs a script: a missing reply means MULTI or a pipeline swallowed it, which the lock cannot work with. */
    private <T> T run(Function<RedisConnection, @Nullable T> call) {
        T result = query(call);
        if (result == null) {
            throw new IllegalStateException("Redis returned no reply; relock does not run inside MULTI or a pipeline");
        }
        return result;
    }

    private <T> @Nullable T query(Function<RedisConnection, @Nullable T> call) {
        try (RedisConnection connection = factory.getConnection()) {
            return call.apply(connection);
        }
    }

    private static <T> @Nullable T eval(RedisConnection connection, LuaScript<T> script, int numKeys, byte[]... keysAndArgs) {
        try {
            return connection.scriptingCommands().evalSha(script.getSha1(), script.returnType(), numKeys, keysAndArgs);
        }
        catch (DataAccessException ex) {
            if (!isNoScript(ex)) {
                throw ex;
            }
            // EVAL also caches the script, so the next EVALSHA finds it
            return connection.scriptingCommands().eval(script.sourceBytes(), script.returnType(), numKeys, keysAndArgs);
        }
    }

    private static boolean isNoScript(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    private static boolean detectCluster(RedisConnectionFactory factory) {
        try (RedisConnection connection = factory.getConnection()) {
            return connection instanceof RedisClusterConnection;
        }
        catch (DataAccessException ex) {
            // Redis is down at start-up; per-slot batches are correct for either topology
            return true;
        }
    }

    private static long asLong(Object value) {
        if (value instanceof Number number) {
            return number.longValue();
        }
        if (value instanceof byte[] raw) {
            return Long.parseLong(new String(raw, StandardCharsets.UTF_8));
        }
        throw new IllegalStateException("Unexpected script reply element: " + value);
    }

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(long value) {
        return Long.toString(value).getBytes(StandardCharsets.UTF_8);
    }
}
