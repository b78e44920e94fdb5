package io.github.relock.core.internal.command;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisConnection;

import io.github.relock.core.internal.command.OwnConnection.ScriptConnection;
import io.github.relock.core.internal.redis.AsyncScripts;
import io.github.relock.core.internal.redis.RedisErrors;
import io.github.relock.core.internal.settings.SettingRules;

/**
 * The {@code minReplicas} policy: a first acquisition and every renewal are followed, on their own
 * connection, by {@code WAIT minReplicas timeout}. An acquisition fewer replicas acknowledged is given back
 * at once and counts as not acquired (fail closed); a renewal they did not acknowledge is reported, so the
 * watchdog can tell the holder before the lease the replicas know of ends. Each step is sent when the reply
 * before it comes in: no thread waits for the WAIT.
 */
final class ReplicaAcknowledgement {

    private static final Logger log = LoggerFactory.getLogger(ReplicaAcknowledgement.class);

    private final int minReplicas;
    private final long timeoutMillis;
    private final AsyncScripts scripts;

    ReplicaAcknowledgement(int minReplicas, long timeoutMillis, AsyncScripts scripts) {
        this.minReplicas = minReplicas;
        this.timeoutMillis = timeoutMillis;
        this.scripts = scripts;
    }

    long timeoutMillis() {
        return timeoutMillis;
    }

    /**
     * Runs the acquire script, then WAITs. Not acknowledged: the hold just taken is released on the same
     * connection (so after it in the replication stream) and {@link AcquireReply#notAcknowledged()} returned.
     *
     * @param acquireArgs keys and arguments of {@code acquire.lua}, whose first {@link LuaScript#ACQUIRE_KEYS} are keys
     * @param release     keys and arguments of {@code release.lua} that give the acquisition back
     * @return the reply, null if there was none (inside MULTI or a pipeline); fails with a {@code DataAccessException}
     */
    CompletableFuture<@Nullable AcquireReply> acquire(RedisConnection connection, KeyNames keys, byte[][] acquireArgs,
            GiveBack release) {
        return OwnConnection.run(connection, scripts, own -> {
            checkTimeout(own);
            return own.eval(LuaScript.ACQUIRE, LuaScript.ACQUIRE_KEYS, acquireArgs).thenCompose(raw -> {
                AcquireReply reply = AcquireReply.of(raw);
                if (raw == null || reply == null || !reply.acquired()) {
                    return CompletableFuture.completedFuture(reply);
                }
                long leaseBefore = raw.size() > 2 ? Encoding.asLong(raw.get(2)) : 0; // a re-entry's lease before it
                byte[][] giveBackArgs = release.args(reply.value(), leaseBefore);
                return own.awaitReplicas(minReplicas, timeoutMillis).handle((acks, failure) -> {
                    if (failure != null) {
                        return giveBack(own, keys, giveBackArgs).<@Nullable AcquireReply>thenCompose(
                                done -> CompletableFuture.failedFuture(RedisErrors.translate(failure)));
                    }
                    if (acks >= minReplicas) {
                        return CompletableFuture.completedFuture(reply);
                    }
                    log.warn("Lock '{}': {} of {} replica(s) acknowledged the acquisition within {} ms; released it, "
                            + "not acquired", keys.name(), acks, minReplicas, timeoutMillis);
                    return giveBack(own, keys, giveBackArgs).thenApply(done -> AcquireReply.notAcknowledged());
                }).thenCompose(next -> next);
            });
        });
    }

    /** The arguments of release.lua that give back an acquisition, given its token and the lease before it (ms). */
    @FunctionalInterface
    interface GiveBack {
        byte[][] args(long token, long leaseBefore);
    }

    /** What a renewal with WAIT found: the script's flags, and whether enough replicas acknowledged it. */
    record Renewal(List<Object> flags, boolean acknowledged) {
    }

    /** @return what the renewal found, null if there was no reply (inside MULTI or a pipeline) */
    CompletableFuture<@Nullable Renewal> renew(RedisConnection connection, int numKeys, byte[][] keysAndArgs) {
        return OwnConnection.run(connection, scripts, own -> {
            checkTimeout(own);
            return own.eval(LuaScript.RENEW, numKeys, keysAndArgs).thenCompose(flags -> {
                if (flags == null) {
                    return CompletableFuture.completedFuture(null);
                }
                return own.awaitReplicas(minReplicas, timeoutMillis).thenApply(acks -> {
                    if (acks < minReplicas) {
                        // still renewed on the primary; a failover now would keep the lease a replica last saw
                        log.warn("{} of {} replica(s) acknowledged the renewal of {} lock lease(s) within {} ms", acks,
                                minReplicas, numKeys, timeoutMillis);
                    }
                    return new Renewal(flags, acks >= minReplicas);
                });
            });
        });
    }

    /** A factory that wraps Lettuce's is not checked when built (ReplicaAckTimeoutCheck); its connections tell. */
    private void checkTimeout(ScriptConnection own) {
        Duration commandTimeout = own.commandTimeout();
        if (commandTimeout != null) {
            SettingRules.checkReplicaAckTimeoutBelow(Duration.ofMillis(timeoutMillis), commandTimeout);
        }
    }

    /** Releases an acquisition on {@code own}; completes when that is done or has failed (which is logged). */
    private static CompletableFuture<Void> giveBack(ScriptConnection own, KeyNames keys, byte[][] releaseArgs) {
        return own.eval(LuaScript.RELEASE, 3, releaseArgs).handle((left, failure) -> {
            if (failure != null) {
                log.warn("Lock '{}': could not give back an unacknowledged acquisition; it frees when its lease "
                        + "ends: {}", keys.name(), RedisErrors.translate(failure).getMessage());
            }
            return null;
        });
    }
}
