package io.github.relock.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.internal.ReplicaAcknowledgement.ScriptConnection;

/**
 * Every Redis call the lock makes. Scripts run with EVALSHA on a connection from the factory, falling
 * back to EVAL once when the server has not seen the script yet (a restart, a failover).
 *
 * <p>With {@code minReplicas > 0}, a first acquisition and every renewal are followed, on the same
 * connection, by {@code WAIT minReplicas timeout}: an acquisition fewer replicas acknowledged is
 * released again and reported as not acquired; a renewal they did not acknowledge is logged.
 */
public final class LockCommands {

    private static final Logger log = LoggerFactory.getLogger(LockCommands.class);

    /** Pairs per renewal call: large batches, but no single script that blocks Redis for long. */
    static final int RENEW_BATCH = 256;
    /** Attempts and pause for a script refused with TRYAGAIN during a slot migration: up to 2 s. */
    static final int TRYAGAIN_ATTEMPTS = 40;
    static final long TRYAGAIN_PAUSE_MILLIS = 50;
    /** Hold counts below this are sent from a table of encoded numbers instead of being formatted per call. */
    private static final int SMALL_NUMBERS = 256;
    private static final byte[][] SMALL = new byte[SMALL_NUMBERS][];

    static {
        for (int i = 0; i < SMALL_NUMBERS; i++) {
            SMALL[i] = Long.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
    }

    private final RedisConnectionFactory factory;
    private final boolean cluster;
    private final int minReplicas;
    private final long replicaAckTimeoutMillis;
    /** How long a fencing counter is kept after it last changed, encoded once. */
    private final byte[] fenceRetention;
    /** The last lease sent, encoded: nearly every call of a client sends the same (the watchdog lease). */
    private volatile EncodedNumber lastLease = new EncodedNumber(0, SMALL[0]);

    public LockCommands(RedisConnectionFactory factory) {
        this(factory, 0, 0, DEFAULT_FENCE_RETENTION_MILLIS);
    }

    /** The default fencing counter retention: 7 days. */
    public static final long DEFAULT_FENCE_RETENTION_MILLIS = 7L * 24 * 3600 * 1000;

    /**
     * @param minReplicas             replicas that must acknowledge an acquisition (0: no WAIT)
     * @param replicaAckTimeoutMillis how long WAIT waits for them
     * @param fenceRetentionMillis    how long a lock's fencing counter is kept after it last changed
     * @throws IllegalArgumentException if {@code minReplicas > 0} on a Redis Cluster connection
     */
    public LockCommands(RedisConnectionFactory factory, int minReplicas, long replicaAckTimeoutMillis,
            long fenceRetentionMillis) {
        this.factory = factory;
        this.fenceRetention = bytes(fenceRetentionMillis);
        this.cluster = detectCluster(factory);
        this.minReplicas = minReplicas;
        this.replicaAckTimeoutMillis = replicaAckTimeoutMillis;
        if (minReplicas > 0 && isClusterConnection(factory)) {
            throw new IllegalArgumentException("minReplicas is not supported on Redis Cluster: WAIT cannot be sent to "
                    + "the lock's node on the connection that ran the script");
        }
    }

    public RedisConnectionFactory connectionFactory() {
        return factory;
    }

    /**
     * Takes, re-enters or reports the lock. With {@code minReplicas > 0}, a first acquisition that fewer
     * replicas acknowledged is released before this returns and reported as {@link AcquireReply#notAcknowledged()}.
     */
    public AcquireReply acquire(LockKeys keys, String ownerId, long leaseMillis, int holdsBefore) {
        return acquire(keys, bytes(ownerId), leaseMillis, holdsBefore);
    }

    /** {@link #acquire(LockKeys, String, long, int)} with the owner id already UTF-8 encoded. */
    public AcquireReply acquire(LockKeys keys, byte[] ownerId, long leaseMillis, int holdsBefore) {
        byte[] lease = lease(leaseMillis);
        byte[] before = bytes(holdsBefore);
        if (minReplicas > 0 && holdsBefore == 0) {
            // a first acquisition WAITs for replicas, on a connection of its own (see ReplicaAcknowledgement)
            return run(c -> ReplicaAcknowledgement.onOwnConnection(c, own -> {
                AcquireReply reply = acquireReply(own.eval(LuaScript.ACQUIRE, 2, keys.lockBytes(), keys.fenceBytes(),
                        ownerId, lease, before, fenceRetention));
                return reply == null || !reply.acquired() || acknowledged(own, keys, ownerId, reply) ? reply
                        : AcquireReply.notAcknowledged();
            }));
        }
        return run(c -> acquireReply(eval(c, LuaScript.ACQUIRE, 2, keys.lockBytes(), keys.fenceBytes(), ownerId,
                lease, before, fenceRetention)));
    }

    private static @Nullable AcquireReply acquireReply(@Nullable List<Object> result) {
        return result == null ? null : new AcquireReply(asLong(result.get(0)), asLong(result.get(1)));
    }

    /**
     * WAITs for the acquisition to reach {@code minReplicas} replicas; if it does not, gives it back (on
     * the same connection, so after it in the replication stream) and returns false. A failed WAIT also
     * gives it back, then rethrows.
     */
    private boolean acknowledged(ScriptConnection c, LockKeys keys, byte[] ownerId, AcquireReply reply) {
        long acks;
        try {
            acks = c.awaitReplicas(minReplicas, replicaAckTimeoutMillis);
        }
        catch (RuntimeException ex) {
            releaseQuietly(c, keys, ownerId, reply.value());
            throw ex;
        }
        if (acks >= minReplicas) {
            return true;
        }
        log.warn("Lock '{}': {} of {} replica(s) acknowledged the acquisition within {} ms; released it, not acquired",
                keys.name(), acks, minReplicas, replicaAckTimeoutMillis);
        releaseQuietly(c, keys, ownerId, reply.value());
        return false;
    }

    private void releaseQuietly(ScriptConnection c, LockKeys keys, byte[] ownerId, long token) {
        try {
            c.eval(LuaScript.RELEASE, 2, keys.lockBytes(), keys.fenceBytes(), ownerId, bytes(token), bytes(1),
                    keys.channelBytes(), fenceRetention);
        }
        catch (RuntimeException ex) {
            log.warn("Lock '{}': could not give back an unacknowledged acquisition; it frees when its lease ends: {}",
                    keys.name(), ex.getMessage());
        }
    }

    /** Returns the holds left, or -1 if this hold (owner and token) is no longer in Redis. */
    public long release(LockKeys keys, String ownerId, long fencingToken, int holdsBefore) {
        return release(keys, bytes(ownerId), bytes(fencingToken), holdsBefore);
    }

    /** {@link #release(LockKeys, String, long, int)} with the owner id and token already encoded. */
    public long release(LockKeys keys, byte[] ownerId, byte[] fencingToken, int holdsBefore) {
        Long left = run(c -> eval(c, LuaScript.RELEASE, 2, keys.lockBytes(), keys.fenceBytes(), ownerId,
                fencingToken, bytes(holdsBefore), keys.channelBytes(), fenceRetention));
        return left;
    }

    /**
     * Moves the caller's last hold to {@code newOwner} with a new fencing token and {@code leaseMillis}, in
     * one step; with {@code othersFirst}, frees and announces it instead when another client may wait
     * (always on a cluster, where a node does not see every subscriber). Safe to send again.
     *
     * @return the new owner's fencing token, 0 if freed instead, -1 if the caller no longer holds this hold
     */
    public long transfer(LockKeys keys, String ownerId, long fencingToken, String newOwner, long leaseMillis,
            boolean othersFirst) {
        int mode = othersFirst ? (cluster ? 2 : 1) : 0;
        Long token = run(c -> eval(c, LuaScript.TRANSFER, 2, keys.lockBytes(), keys.fenceBytes(), bytes(ownerId),
                bytes(fencingToken), bytes(newOwner), bytes(leaseMillis), keys.channelBytes(), bytes(mode),
                fenceRetention));
        return token;
    }

    public boolean forceUnlock(LockKeys keys) {
        Long deleted = run(c -> eval(c, LuaScript.FORCE_UNLOCK, 2, keys.lockBytes(), keys.fenceBytes(),
                keys.channelBytes()));
        return deleted == 1L;
    }

    /** Ends this very hold, whatever its count, as a loss (its token goes stale); false if it was gone already. */
    public boolean forceRelease(Hold hold) {
        LockKeys keys = hold.keys();
        Long deleted = run(c -> eval(c, LuaScript.FORCE_UNLOCK, 2, keys.lockBytes(), keys.fenceBytes(),
                keys.channelBytes(), hold.ownerBytes(), hold.tokenBytes()));
        return deleted == 1L;
    }

    /** Whether acquisitions and renewals wait for replicas ({@code minReplicas > 0}). */
    public boolean awaitsReplicas() {
        return minReplicas > 0;
    }

    /** How long each WAIT may take. */
    public long replicaAckTimeoutMillis() {
        return replicaAckTimeoutMillis;
    }

    /**
     * What a renewal call found.
     *
     * @param renewed      one flag per hold, in order: true renewed, false no longer held by its owner
     * @param acknowledged whether enough replicas acknowledged it (always true without minReplicas)
     */
    public record Renewal(List<Boolean> renewed, boolean acknowledged) {
    }

    /** Renews the leases of {@code holds}, all in one Cluster slot when on a cluster. */
    public Renewal renew(List<Hold> holds, long leaseMillis) {
        byte[][] keysAndArgs = new byte[holds.size() * 2 + 1][];
        int k = 0;
        for (Hold hold : holds) {
            keysAndArgs[k++] = hold.keys().lockBytes();
        }
        keysAndArgs[k++] = bytes(leaseMillis);
        for (Hold hold : holds) {
            keysAndArgs[k++] = hold.ownerBytes();
        }
        boolean[] acknowledged = {true};
        List<Object> reply = minReplicas == 0 ? run(c -> eval(c, LuaScript.RENEW, holds.size(), keysAndArgs))
                : run(c -> ReplicaAcknowledgement.onOwnConnection(c, own -> {
                    List<Object> result = own.eval(LuaScript.RENEW, holds.size(), keysAndArgs);
                    long acks = result == null ? minReplicas : own.awaitReplicas(minReplicas, replicaAckTimeoutMillis);
                    if (acks < minReplicas) {
                        // still renewed on the primary; a failover now would keep the lease a replica last saw
                        acknowledged[0] = false;
                        log.warn("{} of {} replica(s) acknowledged the renewal of {} lock lease(s) within {} ms", acks,
                                minReplicas, holds.size(), replicaAckTimeoutMillis);
                    }
                    return result;
                }));
        List<Boolean> renewed = new ArrayList<>(reply.size());
        for (Object flag : reply) {
            renewed.add(asLong(flag) == 1L);
        }
        return new Renewal(renewed, acknowledged[0]);
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
        return Boolean.TRUE.equals(query(c -> c.keyCommands().exists(keys.lockBytes())));
    }

    public int holdCount(LockKeys keys, String ownerId) {
        byte[] count = query(c -> c.hashCommands().hGet(keys.lockBytes(), bytes(ownerId)));
        return count == null ? 0 : Integer.parseInt(new String(count, StandardCharsets.UTF_8));
    }

    public long remainingLeaseMillis(LockKeys keys) {
        Long pttl = query(c -> c.keyCommands().pTtl(keys.lockBytes()));
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

    /**
     * Runs a script. While Redis Cluster migrates the lock's slot, a node refuses a script whose keys are
     * only partly there with {@code TRYAGAIN} (a lock's fencing key outlives its hash, so taking a freed
     * lock hits this for the whole migration): the script did not run, so it is sent again after a
     * pause, for up to {@value #TRYAGAIN_ATTEMPTS} x {@value #TRYAGAIN_PAUSE_MILLIS} ms.
     */
    static <T> @Nullable T eval(RedisConnection connection, LuaScript<T> script, int numKeys,
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

    /** Whether the factory is known to give cluster connections (false also when Redis cannot be reached). */
    private static boolean isClusterConnection(RedisConnectionFactory factory) {
        try (RedisConnection connection = factory.getConnection()) {
            return connection instanceof RedisClusterConnection;
        }
        catch (DataAccessException ex) {
            return false; // checked again on each WAIT
        }
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

    private byte[] lease(long leaseMillis) {
        EncodedNumber last = lastLease;
        if (last.value() != leaseMillis) {
            last = new EncodedNumber(leaseMillis, bytes(leaseMillis));
            lastLease = last;
        }
        return last.bytes();
    }

    /** A number and its decimal ASCII form, published together (the array is never modified). */
    private record EncodedNumber(long value, byte[] bytes) {
    }

    static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    /** The decimal form Lua's tonumber reads; shared arrays for small values, so callers must not modify it. */
    static byte[] bytes(long value) {
        if (value >= 0 && value < SMALL_NUMBERS) {
            return SMALL[(int) value];
        }
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }
}
