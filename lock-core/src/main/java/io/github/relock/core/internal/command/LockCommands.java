package io.github.relock.core.internal.command;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.internal.command.Encoding.EncodedNumber;
import io.github.relock.core.internal.redis.AsyncScripts;
import io.github.relock.core.internal.redis.ClientScheduler;

/**
 * Every Redis call a lock makes, typed: take, give back, hand off, force, renew, and the reads. The
 * scripts run through the {@link ScriptRunner}; with {@code minReplicas > 0} first acquisitions and
 * renewals go through the {@link ReplicaAcknowledgement} policy instead. The calls of a lock's acquire and
 * release path return a future, failed with a {@code DataAccessException}; the others wait for theirs
 * ({@link #await}).
 */
public final class LockCommands {

    /** In place of a fencing token: whichever hold the owner has (see force-unlock.lua, rw-release.lua). */
    public static final byte[] ANY_TOKEN = new byte[0];

    /** The default fencing counter retention: 7 days. */
    public static final long DEFAULT_FENCE_RETENTION_MILLIS = 7L * 24 * 3600 * 1000;
    /**
     * How long a freed plain lock is kept for the client whose turn it is (see turns.lua): a pub/sub
     * delivery and a round trip, with room for a busy machine. A client that no longer comes costs the others this.
     */
    public static final long TURN_MILLIS = 50;
    private static final byte[] TURN = Encoding.bytes(TURN_MILLIS);
    private static final byte[] WAITS = Encoding.bytes(1);
    private static final byte[] DOES_NOT_WAIT = Encoding.bytes(0);

    private final ScriptRunner runner;
    private final @Nullable ReplicaAcknowledgement replicas;
    /** How long a fencing counter is kept after it last changed, encoded once. */
    private final byte[] fenceRetention;
    /** The last lease sent: nearly every call of a client sends the same one (the watchdog lease). */
    private volatile EncodedNumber lastLease = new EncodedNumber(0, Encoding.bytes(0));

    public LockCommands(RedisConnectionFactory factory) {
        this(factory, 0, 0, DEFAULT_FENCE_RETENTION_MILLIS);
    }

    /**
     * @param minReplicas             replicas that must acknowledge an acquisition (0: no WAIT)
     * @param replicaAckTimeoutMillis how long WAIT waits for them
     * @param fenceRetentionMillis    how long a lock's fencing counter is kept after it last changed
     * @throws IllegalArgumentException if {@code minReplicas > 0} on a Redis Cluster connection
     */
    public LockCommands(RedisConnectionFactory factory, int minReplicas, long replicaAckTimeoutMillis,
            long fenceRetentionMillis) {
        this(factory, minReplicas, replicaAckTimeoutMillis, fenceRetentionMillis,
                new ClientScheduler("relock-scheduler-commands"), Runnable::run);
    }

    /**
     * @param scheduler the client's timer thread: sends again what a migrating slot refused, gives connections back
     * @param opener    where a connection of its own is opened for a script and its WAIT (minReplicas): opening waits
     *                  for Redis, which no thread of the driver's nor the scheduler may
     * @see #LockCommands(RedisConnectionFactory, int, long, long)
     */
    public LockCommands(RedisConnectionFactory factory, int minReplicas, long replicaAckTimeoutMillis,
            long fenceRetentionMillis, ClientScheduler scheduler, Executor opener) {
        this.runner = new ScriptRunner(factory, scheduler, opener);
        this.fenceRetention = Encoding.bytes(fenceRetentionMillis);
        this.replicas = minReplicas > 0
                ? new ReplicaAcknowledgement(minReplicas, replicaAckTimeoutMillis, runner.scripts()) : null;
        if (minReplicas > 0 && Boolean.TRUE.equals(runner.cluster())) {
            throw new IllegalArgumentException("minReplicas is not supported on Redis Cluster: WAIT cannot be sent to "
                    + "the lock's node on the connection that ran the script");
        }
    }

    /** Gives back the connection the commands are sent on: the client is closing. */
    public void close() {
        runner.close();
    }

    public RedisConnectionFactory connectionFactory() {
        return runner.factory();
    }

    /** For the scripts of other lock kinds (see {@code LockKind}). */
    public ScriptRunner runner() {
        return runner;
    }

    /** How long a fencing counter is kept after it last changed, encoded. */
    public byte[] fenceRetention() {
        return fenceRetention;
    }

    /**
     * Takes, re-enters or reports the lock. With {@code minReplicas > 0}, a first acquisition that fewer
     * replicas acknowledged is released before the future completes, and reported as
     * {@link AcquireReply#notAcknowledged()}. The future fails with a {@code DataAccessException}.
     */
    public CompletableFuture<AcquireReply> acquire(KeyNames keys, String ownerId, long leaseMillis, int holdsBefore) {
        return acquire(keys, Encoding.bytes(ownerId), leaseMillis, holdsBefore, -1, false);
    }

    /**
     * {@link #acquire(KeyNames, String, long, int)} with the owner id already UTF-8 encoded.
     *
     * @param lengthens -1, or a re-entry that asks for a longer lease than the hold has left: with minReplicas it
     *                  waits for the replicas too, since a failover would otherwise keep the shorter lease; given back
     *                  unacknowledged, its lease goes back to what it was, never below this many ms
     * @param willWait       whether the caller waits if the lock is busy: it may then take the next turn
     */
    public CompletableFuture<AcquireReply> acquire(KeyNames keys, byte[] ownerId, long leaseMillis, int holdsBefore,
            long lengthens, boolean willWait) {
        byte[][] args = {keys.lockBytes(), keys.fenceBytes(), keys.turnBytes(), keys.fairBytes(), keys.fairFenceBytes(),
                ownerId, lease(leaseMillis),
                Encoding.bytes(holdsBefore), fenceRetention, willWait ? WAITS : DOES_NOT_WAIT, TURN,
                keys.channelBytes()};
        ReplicaAcknowledgement policy = replicas;
        if (policy != null && (holdsBefore == 0 || lengthens >= 0)) {
            // not acknowledged: the one hold just taken is given back, leaving the ones before it (and their lease)
            return ScriptRunner.answered(runner.send(c -> policy.acquire(c, keys, args, (token, leaseBefore) -> withRestore(
                    releaseArgs(keys, ownerId, Encoding.bytes(token), holdsBefore + 1),
                    holdsBefore == 0 ? 0 : Math.max(leaseBefore, lengthens)))));
        }
        return runner.evalAsync(LuaScript.ACQUIRE, LuaScript.ACQUIRE_KEYS, args).thenApply(AcquireReply::of);
    }

    /** Returns the holds left, or -1 if this hold (owner and token) is no longer in Redis. */
    public CompletableFuture<Long> release(KeyNames keys, String ownerId, long fencingToken, int holdsBefore) {
        return release(keys, Encoding.bytes(ownerId), Encoding.bytes(fencingToken), holdsBefore);
    }

    /** {@link #release(KeyNames, String, long, int)} with the owner id and token already encoded. */
    public CompletableFuture<Long> release(KeyNames keys, byte[] ownerId, byte[] fencingToken, int holdsBefore) {
        return runner.evalAsync(LuaScript.RELEASE, 3, releaseArgs(keys, ownerId, fencingToken, holdsBefore));
    }

    /** release.lua's arguments with ARGV[7]: the lease to cut a given-back re-entry's lengthened one back to. */
    private static byte[][] withRestore(byte[][] releaseArgs, long restoreMillis) {
        byte[][] args = Arrays.copyOf(releaseArgs, releaseArgs.length + 1);
        args[releaseArgs.length] = Encoding.bytes(restoreMillis);
        return args;
    }

    private byte[][] releaseArgs(KeyNames keys, byte[] ownerId, byte[] fencingToken, int holdsBefore) {
        return new byte[][] {keys.lockBytes(), keys.fenceBytes(), keys.turnBytes(), ownerId, fencingToken,
                Encoding.bytes(holdsBefore), keys.channelBytes(), fenceRetention, TURN};
    }

    /**
     * Moves the caller's last hold to {@code newOwner} with a new fencing token and {@code leaseMillis}, in
     * one step; with {@code turnUsedUp}, gives the lock to the next client in the lock's line instead, if
     * another client is in it, and puts the caller's client at the back (transfer.lua). Safe to send again.
     *
     * @return the new owner's fencing token, 0 if it went to the line instead, -1 if the caller no longer holds
     *         this hold
     */
    public CompletableFuture<Long> transfer(KeyNames keys, String ownerId, long fencingToken, String newOwner,
            long leaseMillis, boolean turnUsedUp) {
        int mode = turnUsedUp ? 1 : 0;
        return runner.evalAsync(LuaScript.TRANSFER, 3, keys.lockBytes(), keys.fenceBytes(),
                keys.turnBytes(), Encoding.bytes(ownerId), Encoding.bytes(fencingToken), Encoding.bytes(newOwner),
                Encoding.bytes(leaseMillis), keys.channelBytes(), Encoding.bytes(mode), fenceRetention, TURN);
    }

    /** A client none of whose threads waits for {@code keys} any more leaves its turns (turn-leave.lua). */
    public static ScriptCall leaveTurns(KeyNames keys, byte[] ownerId) {
        return new ScriptCall(LuaScript.TURN_LEAVE, 2, keys.lockBytes(), keys.turnBytes(), ownerId,
                keys.channelBytes(), TURN);
    }

    /** Makes {@code call}; the future fails with a {@code DataAccessException}. */
    public CompletableFuture<Void> sendAsync(ScriptCall call) {
        return runner.evalAsync(call.script(), call.numKeys(), call.keysAndArgs()).thenApply(reply -> null);
    }

    /** Makes {@code call} and waits for its reply (see {@link #await}). */
    public void send(ScriptCall call) {
        await(sendAsync(call));
    }


    public boolean forceUnlock(KeyNames keys) {
        return await(runner.evalAsync(LuaScript.FORCE_UNLOCK, 3, keys.lockBytes(), keys.fenceBytes(),
                keys.turnBytes(), keys.channelBytes())) == 1L;
    }

    /**
     * Ends the hold {@code ownerId} has with {@code fencingToken}, whatever its count, as a loss (its token goes
     * stale); false if it was gone already. The future fails with a {@code DataAccessException}.
     */
    public CompletableFuture<Boolean> forceRelease(KeyNames keys, byte[] ownerId, byte[] fencingToken) {
        return runner.evalAsync(LuaScript.FORCE_UNLOCK, 3, keys.lockBytes(), keys.fenceBytes(),
                keys.turnBytes(), keys.channelBytes(), ownerId, fencingToken).thenApply(ended -> ended == 1L);
    }

    /**
     * Ends whichever hold {@code ownerId} has, whatever its count, as a loss: the hold an acquisition whose reply never
     * came may have taken. Sent with the script's source, so that it runs when Redis gets to it even if it was not
     * cached there and its reply comes too late; false if there was none. The future fails with a
     * {@code DataAccessException}.
     */
    public CompletableFuture<Boolean> giveBackUnknown(KeyNames keys, byte[] ownerId) {
        return runner.evalSourceAsync(LuaScript.FORCE_UNLOCK, 3, keys.lockBytes(), keys.fenceBytes(),
                keys.turnBytes(), keys.channelBytes(), ownerId, ANY_TOKEN).thenApply(ended -> ended == 1L);
    }

    /** Whether acquisitions and renewals wait for replicas ({@code minReplicas > 0}). */
    public boolean awaitsReplicas() {
        return replicas != null;
    }

    /** How long each WAIT may take (0 without minReplicas). */
    public long replicaAckTimeoutMillis() {
        ReplicaAcknowledgement policy = replicas;
        return policy == null ? 0 : policy.timeoutMillis();
    }

    /**
     * What a renewal call found.
     *
     * @param renewed      one flag per hold, in order: true renewed, false no longer held by its owner
     * @param acknowledged whether enough replicas acknowledged it (always true without minReplicas)
     */
    public record Renewal(List<Boolean> renewed, boolean acknowledged) {
    }

    /** A hold as a renewal names it: its lock's keys and its hash field. */
    public interface Renewable {

        KeyNames keys();

        /** The hold's hash field, UTF-8 encoded. */
        byte[] ownerBytes();
    }

    /** Renews the leases of {@code holds}, all in one Cluster slot when on a cluster, and waits for the reply. */
    public Renewal renew(List<? extends Renewable> holds, long leaseMillis) {
        return await(renewAsync(holds, leaseMillis));
    }

    /**
     * Renews the leases of {@code holds}, all in one Cluster slot when on a cluster; nothing waits for the reply.
     * With minReplicas, the script and its WAIT hold a dedicated connection until the WAIT answers. The future
     * fails with a {@code DataAccessException}.
     */
    public CompletableFuture<Renewal> renewAsync(List<? extends Renewable> holds, long leaseMillis) {
        byte[][] keysAndArgs = new byte[holds.size() * 2 + 1][];
        int k = 0;
        for (Renewable hold : holds) {
            keysAndArgs[k++] = hold.keys().lockBytes();
        }
        keysAndArgs[k++] = Encoding.bytes(leaseMillis);
        for (Renewable hold : holds) {
            keysAndArgs[k++] = hold.ownerBytes();
        }
        ReplicaAcknowledgement policy = replicas;
        CompletableFuture<ReplicaAcknowledgement.Renewal> reply = policy != null
                ? ScriptRunner.answered(runner.send(c -> policy.renew(c, holds.size(), keysAndArgs)))
                : runner.evalAsync(LuaScript.RENEW, holds.size(), keysAndArgs)
                        .thenApply(flags -> new ReplicaAcknowledgement.Renewal(flags, true));
        return reply.thenApply(done -> {
            List<Boolean> renewed = new ArrayList<>(done.flags().size());
            for (Object flag : done.flags()) {
                renewed.add(Encoding.asLong(flag) == 1L);
            }
            return new Renewal(renewed, done.acknowledged());
        });
    }

    /** Splits holds into renewal calls: per Cluster slot unless the connections are known not to be a cluster's. */
    public <T extends Renewable> List<List<T>> renewalBatches(Collection<T> holds) {
        return RenewalBatches.of(holds, hold -> hold.keys().lockBytes(), !Boolean.FALSE.equals(runner.cluster()));
    }

    public boolean exists(KeyNames keys) {
        Long count = await(runner.call(r -> r.exists(keys.lockBytes())));
        return count != null && count > 0;
    }

    public int holdCount(KeyNames keys, String ownerId) {
        byte[] count = await(runner.call(r -> r.hget(keys.lockBytes(), Encoding.bytes(ownerId))));
        return count == null ? 0 : Integer.parseInt(new String(count, StandardCharsets.UTF_8));
    }

    public long remainingLeaseMillis(KeyNames keys) {
        Long pttl = await(runner.call(r -> r.pttl(keys.lockBytes())));
        return pttl == null ? 0 : Math.max(0, pttl);
    }

    /**
     * Waits for {@code reply} as a blocking caller does (see {@link AsyncScripts#await}): uninterruptibly, since the
     * call may have run on the server and the caller must learn its outcome (the interrupt status is kept), and
     * for as long as Lettuce may take to time out each of its commands (with minReplicas, the script, its WAIT and
     * the give-back of an unacknowledged acquisition), with a backstop beyond.
     *
     * @throws org.springframework.dao.DataAccessException as the future failed
     */
    public <T> T await(CompletableFuture<T> reply) {
        Duration timeout = runner.commandTimeout();
        return AsyncScripts.await(reply, replicas == null ? timeout : timeout.multipliedBy(3));
    }

    private byte[] lease(long leaseMillis) {
        EncodedNumber last = lastLease;
        if (last.value() != leaseMillis) {
            last = new EncodedNumber(leaseMillis, Encoding.bytes(leaseMillis));
            lastLease = last;
        }
        return last.bytes();
    }
}
