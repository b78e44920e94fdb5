package io.github.relock.core.reliability;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

import io.github.relock.core.internal.command.LuaScript;

/**
 * Deliberately broken locks for the checker controls, built from the real machinery: a modified copy
 * of one of relock's own Lua scripts is swapped into the script singleton (reflection on its private
 * fields, test code only) so that the real client, watchdog and waiters run against it. The copy is
 * derived from the shipped script text, so each control breaks exactly one check.
 *
 * <p>Swaps are JVM-wide: every IT class runs in a JVM of its own ({@code reuseForks=false}) and the
 * swap is undone by {@link Swap#close()}. A child JVM applies its own swap from its arguments.
 */
public final class BrokenScripts {

    /** Acquire that never reports "busy": takes the lock even when another owner holds it. */
    public static final String ACQUIRE_NO_OWNER_CHECK = "acquire-no-owner-check";
    /** Acquire that hands out the same fencing token every time: fencing cannot tell holders apart. */
    public static final String ACQUIRE_CONSTANT_TOKEN = "acquire-constant-token";
    /** Release that decrements whatever count the caller believes it had: a replay decrements twice. */
    static final String RELEASE_NO_COUNT_CHECK = "release-no-count-check";
    /** Release that never decrements: holds are never given back. */
    static final String RELEASE_NO_DECREMENT = "release-no-decrement";
    /** Release that frees the lock but does not announce it: waiters are not woken. */
    static final String RELEASE_SILENT = "release-silent";
    /** Release that does not check the owner at all, only the fencing token: anyone who knows it frees it. */
    static final String RELEASE_NO_OWNER_CHECK = "release-no-owner-check";
    /** Renewal that puts a vanished hold back instead of reporting it lost. */
    static final String RENEW_RESURRECTS = "renew-resurrects";
    /** Read-write acquire that gives a new hold no lease of its own: it lives as long as the hash, shared by all. */
    static final String RW_ACQUIRE_SHARED_LEASE = "rw-acquire-shared-lease";
    /** Read-write acquire whose readers pass a waiting writer: a stream of readers starves the writers. */
    static final String RW_ACQUIRE_IGNORES_WAITING_WRITER = "rw-acquire-ignores-waiting-writer";
    /** Acquire that lets any client take a freed lock kept for another client's turn: clients race again. */
    public static final String ACQUIRE_IGNORES_TURNS = "acquire-ignores-turns";
    /** Read-write acquire that lets a writer in while readers hold the lock. */
    public static final String RW_WRITE_IGNORES_READERS = "rw-write-ignores-readers";
    /** A fair lock's line that never drops a lapsed place: a dead waiter at its head jams the line. */
    static final String LINE_KEEPS_LAPSED_PLACES = "line-keeps-lapsed-places";

    private BrokenScripts() {
    }

    /** Undoes a swap. */
    public interface Swap extends AutoCloseable {
        @Override
        void close();
    }

    /** Applies the named breakage ({@code a+b}: both) until the returned swap is closed. */
    public static Swap apply(String breakage) {
        if (breakage.contains("+")) {
            return all(Arrays.stream(breakage.split("\\+")).map(BrokenScripts::apply).toArray(Swap[]::new));
        }
        return switch (breakage) {
            case ACQUIRE_NO_OWNER_CHECK -> swap(LuaScript.ACQUIRE, replace(LuaScript.ACQUIRE,
                    "if pttl ~= -2 then\n  if fair and keep > 0 then\n",
                    "if false then -- BROKEN: no check that someone else holds the lock\n  if fair and keep > 0 then\n"));
            case ACQUIRE_CONSTANT_TOKEN -> swap(LuaScript.ACQUIRE, replace(LuaScript.ACQUIRE,
                    "local token = tonumber(text)\n",
                    "text = '1' local token = 1 -- BROKEN: every holder gets token 1\n"));
            case ACQUIRE_IGNORES_TURNS -> swap(LuaScript.ACQUIRE, replace(LuaScript.ACQUIRE,
                    "if turn and turn.first(queue) ~= client then",
                    "if false then -- BROKEN: whoever comes first takes a lock kept for another client"));
            case RELEASE_NO_COUNT_CHECK -> swap(LuaScript.RELEASE, replace(LuaScript.RELEASE,
                    """
                    if expected > 1 then
                    """,
                    """
                    -- BROKEN: decrement whatever is there, no comparison with the count the caller had
                    if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then return -1 end
                    local left = redis.call('hincrby', KEYS[1], ARGV[1], -1)
                    if left > 0 then return left end
                    redis.call('del', KEYS[1])
                    redis.call('publish', ARGV[4], ARGV[1])
                    do return 0 end
                    if expected > 1 then
                    """));
            case RELEASE_NO_DECREMENT -> swap(LuaScript.RELEASE, replace(LuaScript.RELEASE,
                    "local expected = ARGV[3] == '1' and 1 or tonumber(ARGV[3])\n",
                    "do return tonumber(ARGV[3]) end -- BROKEN: reports the holds unchanged, never gives one back\n"
                            + "local expected = ARGV[3] == '1' and 1 or tonumber(ARGV[3])\n"));
            case RELEASE_SILENT -> swap(LuaScript.RELEASE, replace(replace(LuaScript.RELEASE,
                    "announce(ARGV[4],", // BROKEN: announced where nobody listens, turns too
                    "announce(ARGV[4] .. ':nobody',"),
                    "turns(announce).announce(KEYS[3], queue, ARGV[4],",
                    "turns(announce).announce(KEYS[3], queue, ARGV[4] .. ':nobody',"));
            case RELEASE_NO_OWNER_CHECK -> swap(LuaScript.RELEASE, replace(LuaScript.RELEASE,
                    "local expected = ARGV[3] == '1' and 1 or tonumber(ARGV[3])\n",
                    "redis.call('del', KEYS[1]) do return 0 end -- BROKEN: the token alone frees it\n"
                            + "local expected = ARGV[3] == '1' and 1 or tonumber(ARGV[3])\n"));
            case RENEW_RESURRECTS -> swap(LuaScript.RENEW, replace(LuaScript.RENEW,
                    "if redis.call('hexists', KEYS[i], field) == 1 then",
                    "redis.call('hsetnx', KEYS[i], field, 1) -- BROKEN: puts a vanished hold back\n"
                            + "  if redis.call('hexists', KEYS[i], field) == 1 then"));
            case RW_ACQUIRE_SHARED_LEASE -> swap(LuaScript.RW_ACQUIRE, replace(LuaScript.RW_ACQUIRE,
                    "redis.call('hset', hash, field, 1, field .. ':e', string.format('%d', now + lease), field .. ':t', "
                            + "token)",
                    "redis.call('hset', hash, field, 1, field .. ':t', token) -- BROKEN: no lease of its own"));
            case RW_ACQUIRE_IGNORES_WAITING_WRITER -> swap(LuaScript.RW_ACQUIRE, replace(LuaScript.RW_ACQUIRE,
                    "elseif not state.writer and state.writer_since and state.writer_since <= since then",
                    "elseif false then -- BROKEN: readers pass a waiting writer"));
            case RW_WRITE_IGNORES_READERS -> swap(LuaScript.RW_ACQUIRE, replace(LuaScript.RW_ACQUIRE,
                    "if state.writer or state.readers > 0 then",
                    "if state.writer then -- BROKEN: a writer does not wait for the readers inside"));
            case LINE_KEEPS_LAPSED_PLACES -> all(
                    // line.lua is prepended to each script that reads the line
                    swap(LuaScript.FAIR_ACQUIRE, keepLapsedPlaces(LuaScript.FAIR_ACQUIRE)),
                    swap(LuaScript.FAIR_RELEASE, keepLapsedPlaces(LuaScript.FAIR_RELEASE)),
                    swap(LuaScript.FAIR_LEAVE, keepLapsedPlaces(LuaScript.FAIR_LEAVE)));
            default -> throw new IllegalArgumentException("unknown breakage " + breakage);
        };
    }

    private static String keepLapsedPlaces(LuaScript<?> script) {
        return replace(script, "if kept > now then", "if true then -- BROKEN: a lapsed place stays at the head");
    }

    private static Swap all(Swap... swaps) {
        return () -> {
            for (Swap swap : swaps) {
                swap.close();
            }
        };
    }

    private static String replace(LuaScript<?> script, String target, String replacement) {
        return replace(script.getScriptAsString(), target, replacement);
    }

    private static String replace(String source, String target, String replacement) {
        if (!source.contains(target)) {
            throw new IllegalStateException("The script changed: cannot find the text to break:\n" + target);
        }
        return source.replace(target, replacement);
    }

    /** Swaps the script and its Redis Cluster twin, which differs only in the announcing prelude it starts with. */
    private static Swap swap(LuaScript<?> script, String brokenSource) {
        String original = script.getScriptAsString();
        LuaScript<?> twin = script.onCluster();
        String twinOriginal = twin.getScriptAsString();
        set(script, brokenSource);
        if (twin != script) {
            int prelude = original.length() - commonSuffix(original, twinOriginal);
            int twinPrelude = twinOriginal.length() - commonSuffix(original, twinOriginal);
            set(twin, twinOriginal.substring(0, twinPrelude) + brokenSource.substring(prelude));
        }
        return () -> {
            set(script, original);
            set(twin, twinOriginal);
        };
    }

    private static int commonSuffix(String a, String b) {
        int n = 0;
        while (n < a.length() && n < b.length() && a.charAt(a.length() - 1 - n) == b.charAt(b.length() - 1 - n)) {
            n++;
        }
        return n;
    }

    private static synchronized void set(LuaScript<?> script, String source) {
        byte[] bytes = source.getBytes(StandardCharsets.UTF_8);
        try {
            field("source").set(script, source);
            field("sourceBytes").set(script, bytes);
            field("sha1").set(script, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes)));
        }
        catch (ReflectiveOperationException | NoSuchAlgorithmException ex) {
            throw new IllegalStateException("Cannot swap the script of " + script.name(), ex);
        }
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field field = LuaScript.class.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
