package io.github.relock.benchmarks.libraries;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * The lean floor: the smallest script pair that still gives an owner-checked reentrant lock,
 * Redisson-style: one hash per lock, the owner's hold count in its field. Acquisition is one script
 * ({@code lean/acquire.lua}: take or re-enter, else return the remaining lease), release is one script
 * ({@code lean/release.lua}: only the owner counts down; the last hold deletes the hash and publishes).
 * They run with EVALSHA on one shared Lettuce connection exactly as {@link RawLibrary} runs relock's
 * scripts, so the two floors differ only in their scripts, and relock's cost over this one is what its
 * scripts buy.
 *
 * <p>What it leaves out, on purpose: fencing tokens (and so the counter key a release leaves behind), a
 * release that can be retried safely after a lost reply (it would count down twice), a client-side hold
 * count (every re-entry goes to Redis), renewal, and the pub/sub wake-up: the release publishes, so Redis
 * does that work, but a busy lock is retried after a pause of its remaining lease capped at 100 µs, the
 * same spin as RAW's, so its contended figures are not a design anyone should ship.
 */
public final class LeanLibrary implements LockLibrary {

    /** Lease given to every acquisition; there is no renewal, so it must outlast the longest run. */
    private static final long LEASE_MILLIS = 60_000;
    /** Longest pause between attempts on a busy lock: RAW's spin, so contended runs compare. */
    private static final long MAX_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private final String lettuceVersion;

    public LeanLibrary(String lettuceVersion) {
        this.lettuceVersion = lettuceVersion;
    }

    @Override
    public String id() {
        return "lean";
    }

    @Override
    public String description() {
        return "lean floor: Lettuce " + lettuceVersion + " EVALSHA of a Redisson-style reentrant hash lock (owner-checked, "
                + "no fencing, release not retry-safe), one round trip each, run as RAW runs relock's scripts "
                + "(waits its holder's lease, capped at 100 µs, on a busy lock)";
    }

    @Override
    public boolean hasWatchdog() {
        return false;
    }

    @Override
    public String noWatchdogReason() {
        return "the lean floor has no renewal: it is the script floor, not a lock library";
    }

    @Override
    public String noLockKindsReason() {
        return "the lean floor has only an exclusive lock: it is the script floor, not a lock library";
    }

    @Override
    public LockClient connect(RedisTarget target, @Nullable Duration watchdogTimeout) {
        RedisClient client = RedisClient.create(RedisURI.create(target.host(), target.port()));
        StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        RedisAsyncCommands<byte[], byte[]> redis = connection.async();
        Scripts scripts = new Scripts(await(redis.scriptLoad(script("acquire.lua"))),
                await(redis.scriptLoad(script("release.lua"))));
        String clientId = UUID.randomUUID().toString();
        return new LockClient() {
            @Override
            public BenchLock lock(String name) {
                String lockKey = "bench:lean:{" + name + "}";
                return new LeanLock(redis, scripts, bytes(lockKey), bytes(lockKey + ":released"), clientId);
            }

            @Override
            public void close() {
                connection.close();
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        };
    }

    private record Scripts(String acquireSha, String releaseSha) {
    }

    /** One lock; the hold count lives only in Redis, under the owner's field. */
    private static final class LeanLock implements BenchLock {

        private static final byte[] LEASE = bytes(Long.toString(LEASE_MILLIS));

        private final RedisAsyncCommands<byte[], byte[]> redis;
        private final Scripts scripts;
        private final byte[][] keys;
        private final byte[] channel;
        private final String clientId;

        LeanLock(RedisAsyncCommands<byte[], byte[]> redis, Scripts scripts, byte[] key, byte[] channel,
                String clientId) {
            this.redis = redis;
            this.scripts = scripts;
            this.keys = new byte[][] {key};
            this.channel = channel;
            this.clientId = clientId;
        }

        @Override
        public void lock() {
            byte[] owner = owner();
            while (true) {
                Long pttl = await(redis.<Long>evalsha(scripts.acquireSha(), ScriptOutputType.INTEGER, keys, owner,
                        LEASE));
                if (pttl == null) {
                    return;
                }
                // a holder whose lease is about to end gets the short pause; otherwise the cap
                LockSupport.parkNanos(Math.max(1, Math.min(TimeUnit.MILLISECONDS.toNanos(pttl), MAX_PAUSE_NANOS)));
            }
        }

        @Override
        public void unlock() {
            Long released = await(redis.<Long>evalsha(scripts.releaseSha(), ScriptOutputType.INTEGER, keys, owner(),
                    LEASE, channel));
            if (released == null) {
                throw new IllegalMonitorStateException("lean: " + new String(keys[0], StandardCharsets.UTF_8)
                        + " is not held by this thread");
            }
        }

        /** Ownership is the thread's, as with {@code java.util.concurrent.locks.Lock}. */
        private byte[] owner() {
            return bytes(clientId + ":" + Thread.currentThread().getId());
        }
    }

    private static <T> T await(RedisFuture<T> future) {
        return LettuceFutures.awaitOrCancel(future, 60, TimeUnit.SECONDS);
    }

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    /** One of the lean scripts, shipped beside this class as resources. */
    private static String script(String name) {
        try (InputStream in = LeanLibrary.class.getResourceAsStream("/io/github/relock/benchmarks/lean/" + name)) {
            if (in == null) {
                throw new IllegalStateException("lean/" + name + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
