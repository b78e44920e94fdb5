package io.github.relock.benchmarks.libraries;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The floor for any script-based lock: relock's own {@code acquire.lua} and {@code release.lua}, run
 * with EVALSHA straight on one shared Lettuce connection, one round trip each, with nothing around them
 * but a per-thread hold count and token. It uses Lettuce the leanest way (byte arrays, async commands
 * awaited in place; the sync API would add a reflective proxy per call), so what separates a library
 * from it is the library's own work. No watchdog, no pub/sub: a busy lock is retried after a short
 * pause (a spin), so its contended figures are not a design anyone should ship.
 */
public final class RawLibrary implements LockLibrary {

    /** Lease given to every acquisition; there is no renewal, so it must outlast the longest run. */
    private static final long LEASE_MILLIS = 60_000;
    /** Pause between attempts on a busy lock. */
    private static final long SPIN_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private final String lettuceVersion;

    public RawLibrary(String lettuceVersion) {
        this.lettuceVersion = lettuceVersion;
    }

    @Override
    public String id() {
        return "raw";
    }

    @Override
    public String description() {
        return "RAW: Lettuce " + lettuceVersion + " EVALSHA of relock's acquire.lua/release.lua, one round trip each"
                + " (spins 100 µs on a busy lock)";
    }

    @Override
    public boolean hasWatchdog() {
        return false;
    }

    @Override
    public String noWatchdogReason() {
        return "RAW has no renewal: it is the round-trip floor, not a lock library";
    }

    @Override
    public String noLockKindsReason() {
        return "RAW runs only the exclusive lock's scripts: it is the round-trip floor, not a lock library";
    }

    @Override
    public LockClient connect(RedisTarget target, @Nullable Duration watchdogTimeout) {
        RedisClient client = RedisClient.create(RedisURI.create(target.host(), target.port()));
        StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        RedisAsyncCommands<byte[], byte[]> redis = connection.async();
        // lock-core prepends announce.lua to the scripts that announce a release (standalone: PUBLISH), then
        // fence.lua, for a release ending.lua, and turns.lua (see LuaScript's ACQUIRE and RELEASE), and so does this
        String acquireSha = await(redis.scriptLoad(script("announce.lua") + script("fence.lua") + script("turns.lua")
                + script("acquire.lua")));
        String releaseSha = await(redis.scriptLoad(script("announce.lua") + script("fence.lua") + script("ending.lua")
                + script("turns.lua") + script("release.lua")));
        String clientId = UUID.randomUUID().toString();
        return new LockClient() {
            @Override
            public BenchLock lock(String name) {
                String lockKey = "bench:raw:{" + name + "}";
                byte[][] keys = {bytes(lockKey), bytes(lockKey + ":fence"), bytes(lockKey + ":turn")};
                // acquire.lua also gets the fair lock of the same name, hash and counter, which it looks at
                byte[][] acquireKeys = {keys[0], keys[1], keys[2], bytes(lockKey + ":fair"),
                        bytes(lockKey + ":fair:fence")};
                return new RawLock(redis, acquireSha, releaseSha, keys, acquireKeys, bytes(lockKey + ":released"),
                        clientId);
            }

            @Override
            public void close() {
                connection.close();
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        };
    }

    private static <T> T await(RedisFuture<T> future) {
        return LettuceFutures.awaitOrCancel(future, 60, TimeUnit.SECONDS);
    }

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /** One lock; hold counts live in a per-thread map, as ownership is the thread's. */
    private static final class RawLock implements BenchLock {

        private static final ThreadLocal<Map<RawLock, long[]>> HOLDS = ThreadLocal.withInitial(HashMap::new);
        private static final byte[] LEASE = bytes(LEASE_MILLIS);
        /** The fencing counter's retention, as relock sends it (its default, 7 days). */
        private static final byte[] FENCE_RETENTION = bytes(TimeUnit.DAYS.toMillis(7));

        private final RedisAsyncCommands<byte[], byte[]> redis;
        private final String acquireSha;
        private final String releaseSha;
        private final byte[][] keys;
        private final byte[][] acquireKeys;
        private final byte[] channel;
        private final String clientId;

        RawLock(RedisAsyncCommands<byte[], byte[]> redis, String acquireSha, String releaseSha, byte[][] keys,
                byte[][] acquireKeys, byte[] channel, String clientId) {
            this.redis = redis;
            this.acquireSha = acquireSha;
            this.releaseSha = releaseSha;
            this.keys = keys;
            this.acquireKeys = acquireKeys;
            this.channel = channel;
            this.clientId = clientId;
        }

        @Override
        public void lock() {
            byte[] owner = bytes(clientId + ":" + Thread.currentThread().getId());
            long[] hold = HOLDS.get().computeIfAbsent(this, k -> new long[2]); // {count, token}
            while (true) {
                List<Long> reply = await(redis.evalsha(acquireSha, ScriptOutputType.MULTI, acquireKeys, owner, LEASE,
                        bytes(hold[0]), FENCE_RETENTION));
                long holds = reply.get(0);
                if (holds > 0) {
                    if (hold[0] == 0) {
                        hold[1] = reply.get(1);
                    }
                    hold[0] = holds;
                    return;
                }
                if (holds < 0) {
                    throw new IllegalStateException("RAW: hold on " + new String(keys[0], StandardCharsets.UTF_8)
                            + " lost");
                }
                LockSupport.parkNanos(SPIN_PAUSE_NANOS);
            }
        }

        @Override
        public void unlock() {
            byte[] owner = bytes(clientId + ":" + Thread.currentThread().getId());
            Map<RawLock, long[]> holds = HOLDS.get();
            long[] hold = holds.get(this);
            if (hold == null || hold[0] == 0) {
                throw new IllegalMonitorStateException("RAW: lock not held");
            }
            Long left = await(redis.<Long>evalsha(releaseSha, ScriptOutputType.INTEGER, keys, owner, bytes(hold[1]),
                    bytes(hold[0]), channel, FENCE_RETENTION));
            if (left < 0) {
                throw new IllegalMonitorStateException("RAW: lock was lost");
            }
            hold[0] = left;
            if (left == 0) {
                holds.remove(this);
            }
        }
    }

    /**
     * One of relock's scripts, as lock-core ships it: the .lua resources are part of its jar (see the README's
     * "How it works"), so the floor runs exactly what relock runs, without reaching into its internals.
     */
    private static String script(String name) {
        try (InputStream in = RawLibrary.class.getResourceAsStream("/io/github/relock/core/" + name)) {
            if (in == null) {
                throw new IllegalStateException("lock-core's " + name + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
