package io.github.relock.core.internal;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What the client knows about one owner's hold on one lock. The owner changes its count; the
 * watchdog reads it and may mark it lost.
 */
public final class Hold {

    private final LockKeys keys;
    private final String ownerId;
    /** The owner id and token as the release and renewal scripts are sent them, encoded once per hold. */
    private final byte[] ownerBytes;
    private final byte[] tokenBytes;
    private final HoldRegistry.Id registryId;
    private final @Nullable String ownerThread;
    private final long fencingToken;
    private final boolean watchdog;
    private final Instant acquiredAt;
    private volatile int count;
    private volatile long leaseExpiresAtMillis;
    /** With minReplicas: until when (System.nanoTime) replicas are known to keep this hold's lease. */
    private volatile long acknowledgedUntilNanos = Long.MAX_VALUE;
    private volatile boolean lost;

    public Hold(LockKeys keys, String ownerId, @Nullable String ownerThread, long fencingToken, boolean watchdog,
            int count, long leaseMillis) {
        this(keys, ownerId, LockCommands.bytes(ownerId), ownerThread, fencingToken, watchdog, count, leaseMillis);
    }

    /** @param ownerBytes {@code ownerId} in UTF-8; kept, never modified */
    Hold(LockKeys keys, String ownerId, byte[] ownerBytes, @Nullable String ownerThread, long fencingToken,
            boolean watchdog, int count, long leaseMillis) {
        this.keys = keys;
        this.ownerId = ownerId;
        this.ownerBytes = ownerBytes;
        this.tokenBytes = LockCommands.bytes(fencingToken);
        this.registryId = new HoldRegistry.Id(keys.lock(), ownerId);
        this.ownerThread = ownerThread;
        this.fencingToken = fencingToken;
        this.watchdog = watchdog;
        this.acquiredAt = Instant.now();
        this.count = count;
        leaseRenewed(leaseMillis);
    }

    public LockKeys keys() {
        return keys;
    }

    public String ownerId() {
        return ownerId;
    }

    byte[] ownerBytes() {
        return ownerBytes;
    }

    byte[] tokenBytes() {
        return tokenBytes;
    }

    HoldRegistry.Id registryId() {
        return registryId;
    }

    public @Nullable String ownerThread() {
        return ownerThread;
    }

    public long fencingToken() {
        return fencingToken;
    }

    /** Whether the watchdog renews this hold (it was first taken without a lease). */
    public boolean watchdog() {
        return watchdog;
    }

    public Instant acquiredAt() {
        return acquiredAt;
    }

    public int count() {
        return count;
    }

    void count(int count) {
        this.count = count;
    }

    public Instant leaseExpiresAt() {
        return Instant.ofEpochMilli(leaseExpiresAtMillis);
    }

    void leaseRenewed(long leaseMillis) {
        this.leaseExpiresAtMillis = System.currentTimeMillis() + leaseMillis;
    }

    void leaseAtLeast(long leaseMillis) {
        this.leaseExpiresAtMillis = Math.max(leaseExpiresAtMillis, System.currentTimeMillis() + leaseMillis);
    }

    /**
     * The lease as far as replicas acknowledged it: a renewal sent at {@code sentNanos} that they
     * acknowledged keeps it at least until {@code sentNanos + leaseMillis} on any of them.
     */
    void acknowledged(long sentNanos, long leaseMillis) {
        this.acknowledgedUntilNanos = sentNanos + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(leaseMillis);
    }

    long acknowledgedUntilNanos() {
        return acknowledgedUntilNanos;
    }

    public boolean lost() {
        return lost;
    }

    void markLost() {
        this.lost = true;
    }
}
