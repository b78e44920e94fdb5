package io.github.relock.core.internal.hold;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.HeldLock;
import io.github.relock.core.internal.command.Encoding;
import io.github.relock.core.internal.command.LockCommands;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.core.internal.kind.LockKind;

/**
 * What the client knows about one owner's hold on one lock. The owner changes its count; the
 * watchdog reads it and may mark it lost.
 */
public final class Hold implements LockCommands.Renewable {

    private final LockKeys keys;
    private final String ownerId;
    /** The owner id as the renewal scripts are sent it: shared by the owner's holds, not encoded per hold. */
    private final byte[] ownerBytes;
    private final @Nullable String ownerThread;
    private final long fencingToken;
    private volatile boolean watchdog;
    /** {@link #acquiredAt()} in nanoseconds since the epoch: a long, not an Instant object per hold. */
    private final long acquiredAtEpochNanos;
    /** The nesting depth: levels Redis counts ({@link #stored}) and levels re-entered in this client alone. */
    private volatile int count;
    /** How many levels Redis counts for this hold; never more than {@link #count}. */
    private volatile int stored;
    private volatile long leaseExpiresAtMillis;
    /** Until when (System.nanoTime) Redis is known to keep this hold: the last confirmed lease, from its sending. */
    private volatile long confirmedUntilNanos;
    /** With minReplicas: until when (System.nanoTime) replicas are known to keep this hold's lease. */
    private volatile long acknowledgedUntilNanos = Long.MAX_VALUE;
    /** When (System.nanoTime) the hold must end at the latest; Long.MAX_VALUE: no limit. */
    private volatile long maxHoldUntilNanos = Long.MAX_VALUE;
    private volatile boolean lost;
    private volatile boolean lossSeen;
    private volatile long lossSeenAtNanos;

    /** @param sentNanos when the script that granted the lease was sent (System.nanoTime) */
    public Hold(LockKeys keys, String ownerId, @Nullable String ownerThread, long fencingToken, boolean watchdog,
            int count, long leaseMillis, long sentNanos) {
        this(keys, ownerId, Encoding.bytes(ownerId), ownerThread, fencingToken, watchdog, count, leaseMillis,
                sentNanos);
    }

    /** @param ownerBytes {@code ownerId} in UTF-8; kept, never modified */
    public Hold(LockKeys keys, String ownerId, byte[] ownerBytes, @Nullable String ownerThread, long fencingToken,
            boolean watchdog, int count, long leaseMillis, long sentNanos) {
        this.keys = keys.slim(); // the handle's keys keep what its calls send; a hold needs only the lock key
        this.ownerId = ownerId;
        this.ownerBytes = ownerBytes;
        this.ownerThread = ownerThread;
        this.fencingToken = fencingToken;
        this.watchdog = watchdog;
        Instant now = Instant.now();
        this.acquiredAtEpochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        this.count = count;
        this.stored = count;
        this.confirmedUntilNanos = sentNanos;
        leaseRenewed(sentNanos, leaseMillis);
    }

    @Override
    public LockKeys keys() {
        return keys;
    }

    /** The owner as the API names it (a write hold's field carries a suffix; see {@link LockKind#owner}). */
    public String owner() {
        return keys.kind().owner(ownerId);
    }

    /** The hash field of this hold in Redis: the owner id, as {@link LockKind#field} makes it. */
    public String ownerId() {
        return ownerId;
    }

    @Override
    public byte[] ownerBytes() {
        return ownerBytes;
    }

    /** Encoded when sent: a release sends it once, so no hold keeps it. */
    public byte[] tokenBytes() {
        return Encoding.bytes(fencingToken);
    }

    public @Nullable String ownerThread() {
        return ownerThread;
    }

    /** What the API shows of this hold: a snapshot, taken now. */
    public HeldLock heldLock() {
        return new HeldLock(keys.name(), keys.lock(), owner(), ownerThread, count, fencingToken, acquiredAt(),
                leaseExpiresAt(), watchdog);
    }

    public long fencingToken() {
        return fencingToken;
    }

    /**
     * Whether the watchdog renews this hold: it was taken, or re-entered, without a lease. A watchdog
     * re-entry hands a fixed-lease hold to the watchdog for the rest of the hold.
     */
    public boolean watchdog() {
        return watchdog;
    }

    public void handToWatchdog() {
        this.watchdog = true;
    }

    public Instant acquiredAt() {
        return Instant.ofEpochSecond(0, acquiredAtEpochNanos);
    }

    public int count() {
        return count;
    }

    public void count(int count) {
        this.count = count;
    }

    public int stored() {
        return stored;
    }

    public void stored(int stored) {
        this.stored = stored;
    }

    /**
     * Whether a re-entry may be counted in this client alone, with no round trip: the hold is not known lost
     * or overdue, and Redis (and, with minReplicas, its replicas) is known to keep it at least as long as the
     * re-entry asks; a watchdog re-entry needs a hold the watchdog already renews.
     */
    public boolean coversReentry(long nowNanos, long leaseMillis, boolean watchdogAsked, boolean replicas) {
        if (lost || overdue(nowNanos) || (watchdogAsked && !watchdog)) {
            return false;
        }
        long until = watchdogAsked ? nowNanos : nowNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        return confirmedUntilNanos - until > 0 && (!replicas || acknowledgedUntilNanos == Long.MAX_VALUE
                || acknowledgedUntilNanos - until > 0);
    }

    public Instant leaseExpiresAt() {
        return Instant.ofEpochMilli(leaseExpiresAtMillis);
    }

    /**
     * A script sent at {@code sentNanos} gave the hold a lease of at least {@code leaseMillis}: the scripts
     * lengthen a lease, never shorten it, so neither does this.
     */
    public void leaseRenewed(long sentNanos, long leaseMillis) {
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentNanos);
        this.leaseExpiresAtMillis = Math.max(leaseExpiresAtMillis,
                System.currentTimeMillis() - elapsedMillis + leaseMillis);
        this.confirmedUntilNanos = Math.max(confirmedUntilNanos, sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
    }

    /** Ends the hold {@code maxHoldNanos} after {@code sentNanos}, when its first acquisition was sent (0: never). */
    public void maxHold(long sentNanos, long maxHoldNanos) {
        if (maxHoldNanos > 0) {
            this.maxHoldUntilNanos = sentNanos + maxHoldNanos;
        }
    }

    /** Whether the hold has been held longer than its maximum hold time. */
    boolean overdue(long nowNanos) {
        return maxHoldUntilNanos != Long.MAX_VALUE && nowNanos - maxHoldUntilNanos >= 0;
    }

    /** Whether this hold has a fixed lease (no watchdog) that has run out by the local clock. */
    public boolean fixedLeaseEnded() {
        return !watchdog && System.nanoTime() - confirmedUntilNanos >= 0;
    }

    /**
     * Whether this hold's lease has run out by the local clock: a fixed lease, or a watchdog lease that no
     * renewal reached in time (as {@link #knownUntilNanos()} counts it). Another owner may have the lock.
     */
    public boolean leaseEnded() {
        return System.nanoTime() - (watchdog ? knownUntilNanos() : confirmedUntilNanos) >= 0;
    }

    /** Until when (System.nanoTime) Redis is known to keep this hold, unless it was deleted. */
    public long confirmedUntilNanos() {
        return confirmedUntilNanos;
    }

    /**
     * The lease as far as replicas acknowledged it: a renewal sent at {@code sentNanos} that they
     * acknowledged keeps it at least until {@code sentNanos + leaseMillis} on any of them.
     */
    public void acknowledged(long sentNanos, long leaseMillis) {
        long until = sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        if (acknowledgedUntilNanos == Long.MAX_VALUE || until - acknowledgedUntilNanos > 0) {
            this.acknowledgedUntilNanos = until;
        }
    }

    public long acknowledgedUntilNanos() {
        return acknowledgedUntilNanos;
    }

    public boolean lost() {
        return lost;
    }

    /** Marks the hold lost; true if it was not already, so that a loss is reported once. */
    public synchronized boolean markLost() {
        boolean first = !lost;
        this.lost = true;
        return first;
    }

    /**
     * The owner asked ({@code isHeldByCurrentThread()}, {@code getHoldCount()}) and learned that the hold is
     * gone: its next acquisition starts afresh instead of being refused as a re-entry into a lost lock.
     */
    public void lossSeen(long nowNanos) {
        this.lost = true;
        this.lossSeenAtNanos = nowNanos;
        this.lossSeen = true;
    }

    public boolean lossSeen() {
        return lossSeen;
    }

    /**
     * Whether the registry may forget this hold as of {@code cutoffNanos}: a fixed lease that ended, or a loss
     * the owner has seen, before then. Kept until then for an {@code unlock()} to report.
     */
    boolean forgettableBefore(long cutoffNanos) {
        return lossSeen ? cutoffNanos - lossSeenAtNanos > 0
                : !watchdog && !lost && cutoffNanos - confirmedUntilNanos > 0;
    }

    /**
     * Until when (System.nanoTime) Redis is known to keep this hold: the lease the primary confirmed, and with
     * minReplicas the one the replicas acknowledged, if that ends first (a failover keeps only that one).
     */
    long knownUntilNanos() {
        long confirmed = confirmedUntilNanos();
        long acknowledged = acknowledgedUntilNanos();
        return acknowledged == Long.MAX_VALUE || confirmed - acknowledged <= 0 ? confirmed : acknowledged;
    }
}
