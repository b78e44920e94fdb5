package io.github.relock.core.internal.command;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.RedisScript;

import io.github.relock.core.internal.redis.AsyncScripts;

/**
 * A Lua script read once from a {@code .lua} resource, with its SHA-1 computed up front: unlike
 * {@code DefaultRedisScript}, asking for the SHA on every call takes no lock. Scripts that read the fencing
 * counter get {@code fence.lua} prepended, the one place that knows the counter's format; those that use a
 * fair lock's waiting line get {@code line.lua}, and a plain lock's turns {@code turns.lua} (a script defines its
 * preludes' functions anew on every call: each gets only the preludes its paths call); the read-write lock's
 * scripts get {@code rw-state.lua}, the one place that knows its hash's layout. Scripts that announce a release
 * get {@code announce.lua} (PUBLISH), and a twin for Redis Cluster connections ({@link #onCluster()}) gets
 * {@code announce-sharded.lua} (SPUBLISH).
 */
public final class LuaScript<T> implements RedisScript<T> {

    /** The keys a plain lock's acquire.lua gets: lock, counter, turns, and the fair lock's hash and counter. */
    static final int ACQUIRE_KEYS = 5;

    /** Take or re-enter a plain lock; see {@code acquire.lua}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static final LuaScript<List<Object>> ACQUIRE = announcing("acquire.lua", (Class) List.class,
            "fence.lua", "turns.lua");
    /** Give back one hold of a plain lock; see {@code release.lua}. */
    public static final LuaScript<Long> RELEASE = announcing("release.lua", Long.class, "fence.lua", "ending.lua",
            "turns.lua");
    /**
     * Take or re-enter a fair lock through its line: {@code acquire.lua} with the line's functions instead of the
     * turns' (each script defines its functions anew on every call, so each kind gets only its own).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static final LuaScript<List<Object>> FAIR_ACQUIRE = announcing("acquire.lua", (Class) List.class,
            "fence.lua", "line.lua");
    /** Give back one hold of a fair lock; see {@code release.lua}. */
    public static final LuaScript<Long> FAIR_RELEASE = announcing("release.lua", Long.class, "fence.lua",
            "ending.lua", "line.lua");
    /** Renew a batch of leases; see {@code renew.lua}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static final LuaScript<List<Object>> RENEW = new LuaScript<>("renew.lua", (Class) List.class);
    /** Hand a last hold to a waiting owner of the same client, or free it for others; see {@code transfer.lua}. */
    public static final LuaScript<Long> TRANSFER = announcing("transfer.lua", Long.class, "fence.lua", "ending.lua",
            "turns.lua");
    /** Hand a fair lock's last hold to the head of its line waiting in the same client; see {@code transfer.lua}. */
    public static final LuaScript<Long> FAIR_TRANSFER = announcing("transfer.lua", Long.class, "fence.lua",
            "ending.lua", "line.lua");
    /** Delete a lock whoever holds it; see {@code force-unlock.lua}. */
    public static final LuaScript<Long> FORCE_UNLOCK = announcing("force-unlock.lua", Long.class, "fence.lua");
    /** A client whose last waiter gave up leaves a plain lock's turns; see {@code turn-leave.lua}. */
    public static final LuaScript<Long> TURN_LEAVE = announcing("turn-leave.lua", Long.class, "turns.lua");
    /** A waiter of a fair lock leaves its line; see {@code fair-leave.lua}. */
    public static final LuaScript<Long> FAIR_LEAVE = announcing("fair-leave.lua", Long.class, "line.lua");
    /** Take or re-enter a side of a read-write lock; see {@code rw-acquire.lua}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static final LuaScript<List<Object>> RW_ACQUIRE = new LuaScript<>("rw-acquire.lua", (Class) List.class,
            "rw-state.lua");
    /** Give back one hold of a read-write lock; see {@code rw-release.lua}. */
    public static final LuaScript<Long> RW_RELEASE = announcing("rw-release.lua", Long.class, "rw-state.lua");
    /** A writer stops waiting; see {@code rw-withdraw.lua}. */
    public static final LuaScript<Long> RW_WITHDRAW = announcing("rw-withdraw.lua", Long.class);
    /** What a read-write lock's hash says of its live holds; see {@code rw-holds.lua}. */
    public static final LuaScript<Long> RW_HOLDS = new LuaScript<>("rw-holds.lua", Long.class);
    /** End the holds of one side of a read-write lock, or of both; see {@code rw-force-unlock.lua}. */
    public static final LuaScript<Long> RW_FORCE_UNLOCK = announcing("rw-force-unlock.lua", Long.class,
            "rw-state.lua");

    private static final String RESOURCES = "/io/github/relock/core/";

    private final String name;
    private final String source;
    private final byte[] sourceBytes;
    private final String sha1;
    private final Class<T> resultType;
    /** Derived once: {@code ReturnType.fromJavaType} walks type checks on every call. */
    private final ReturnType returnType;
    /** The same script announcing with SPUBLISH, for a Redis Cluster; this one if it announces nothing. */
    private final LuaScript<T> sharded;

    /** A script that announces releases: {@code announce.lua} first, and a twin with {@code announce-sharded.lua}. */
    private static <T> LuaScript<T> announcing(String resource, Class<T> resultType, String... preludes) {
        String[] classic = new String[preludes.length + 1];
        String[] sharded = new String[preludes.length + 1];
        classic[0] = "announce.lua";
        sharded[0] = "announce-sharded.lua";
        System.arraycopy(preludes, 0, classic, 1, preludes.length);
        System.arraycopy(preludes, 0, sharded, 1, preludes.length);
        return new LuaScript<>(resource, resultType, new LuaScript<>(resource, resultType, null, sharded), classic);
    }

    private LuaScript(String resource, Class<T> resultType, String... preludes) {
        this(resource, resultType, null, preludes);
    }

    /**
     * @param sharded  its twin for a Redis Cluster; null: this one
     * @param preludes scripts of shared functions to prepend, in order
     */
    private LuaScript(String resource, Class<T> resultType, @Nullable LuaScript<T> sharded, String... preludes) {
        this.name = resource;
        StringBuilder text = new StringBuilder();
        for (String prelude : preludes) {
            text.append(read(RESOURCES + prelude));
        }
        this.source = text.append(read(RESOURCES + resource)).toString();
        this.sourceBytes = source.getBytes(StandardCharsets.UTF_8);
        this.sha1 = sha1(sourceBytes);
        this.resultType = resultType;
        this.returnType = ReturnType.fromJavaType(resultType);
        this.sharded = sharded == null ? this : sharded;
    }

    /** The script as {@link AsyncScripts} sends it (read afresh: the reliability controls swap a script's text). */
    AsyncScripts.Script sent() {
        return new AsyncScripts.Script(sha1, sourceBytes, returnType == ReturnType.MULTI);
    }

    /** The variant for a Redis Cluster: announces with SPUBLISH, so only the lock's shard carries the message. */
    public LuaScript<T> onCluster() {
        return sharded;
    }

    public String name() {
        return name;
    }

    public byte[] sourceBytes() {
        return sourceBytes;
    }

    public ReturnType returnType() {
        return returnType;
    }

    @Override
    public String getSha1() {
        return sha1;
    }

    @Override
    public Class<T> getResultType() {
        return resultType;
    }

    @Override
    public String getScriptAsString() {
        return source;
    }

    private static String read(String path) {
        try (InputStream in = LuaScript.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + path + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read Lua script " + path, ex);
        }
    }

    private static String sha1(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-1 is required by the JDK specification", ex);
        }
    }
}
