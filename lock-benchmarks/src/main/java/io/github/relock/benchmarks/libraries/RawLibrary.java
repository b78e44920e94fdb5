package io.github.relock.benchmarks.libraries;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.LuaScript;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The floor for any script-based lock: relock's own {@code acquire.lua} and {@code release.lua}, run
 * with EVALSHA straight on a Lettuce connection, one round trip each, with nothing around them but a
 * per-thread hold count and token. No watchdog, no pub/sub: a busy lock is retried after a short
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
    public LockClient connect(RedisTarget target, @Nullable Duration watchdogTimeout) {
        RedisClient client = RedisClient.create(RedisURI.create(target.host(), target.port()));
        StatefulRedisConnection<String, String> connection = client.connect();
        RedisCommands<String, String> redis = connection.sync();
        String acquireSha = redis.scriptLoad(LuaScript.ACQUIRE.getScriptAsString());
        String releaseSha = redis.scriptLoad(LuaScript.RELEASE.getScriptAsString());
        String clientId = UUID.randomUUID().toString();
        return new LockClient() {
            @Override
            public BenchLock lock(String name) {
                String lockKey = "bench:raw:{" + name + "}";
                String[] keys = {lockKey, lockKey + ":fence"};
                String channel = lockKey + ":released";
                return new RawLock(redis, acquireSha, releaseSha, keys, channel, clientId);
            }

            @Override
            public void close() {
                connection.close();
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        };
    }

    /** One lock; hold counts live in a per-thread map, as ownership is the thread's. */
    private static final class RawLock implements BenchLock {

        private static final ThreadLocal<Map<String, long[]>> HOLDS = ThreadLocal.withInitial(HashMap::new);

        private final RedisCommands<String, String> redis;
        private final String acquireSha;
        private final String releaseSha;
        private final String[] keys;
        private final String channel;
        private final String clientId;

        RawLock(RedisCommands<String, String> redis, String acquireSha, String releaseSha, String[] keys,
                String channel, String clientId) {
            this.redis = redis;
            this.acquireSha = acquireSha;
            this.releaseSha = releaseSha;
            this.keys = keys;
            this.channel = channel;
            this.clientId = clientId;
        }

        @Override
        public void lock() {
            String owner = clientId + ":" + Thread.currentThread().getId();
            long[] hold = HOLDS.get().computeIfAbsent(keys[0], k -> new long[2]); // {count, token}
            String lease = Long.toString(LEASE_MILLIS);
            while (true) {
                List<Long> reply = redis.evalsha(acquireSha, ScriptOutputType.MULTI, keys, owner, lease,
                        Long.toString(hold[0]));
                long holds = reply.get(0);
                if (holds > 0) {
                    if (hold[0] == 0) {
                        hold[1] = reply.get(1);
                    }
                    hold[0] = holds;
                    return;
                }
                if (holds < 0) {
                    throw new IllegalStateException("RAW: hold on " + keys[0] + " lost");
                }
                LockSupport.parkNanos(SPIN_PAUSE_NANOS);
            }
        }

        @Override
        public void unlock() {
            String owner = clientId + ":" + Thread.currentThread().getId();
            Map<String, long[]> holds = HOLDS.get();
            long[] hold = holds.get(keys[0]);
            if (hold == null || hold[0] == 0) {
                throw new IllegalMonitorStateException("RAW: " + keys[0] + " not held");
            }
            Long left = redis.evalsha(releaseSha, ScriptOutputType.INTEGER, keys, owner, Long.toString(hold[1]),
                    Long.toString(hold[0]), channel);
            if (left < 0) {
                throw new IllegalMonitorStateException("RAW: " + keys[0] + " was lost");
            }
            hold[0] = left;
            if (left == 0) {
                holds.remove(keys[0]);
            }
        }
    }
}
