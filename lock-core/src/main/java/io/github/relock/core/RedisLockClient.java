package io.github.relock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.internal.Arguments;
import io.github.relock.core.internal.ClientContext;
import io.github.relock.core.internal.Hold;
import io.github.relock.core.internal.HoldRegistry;
import io.github.relock.core.internal.LeaseWatchdog;
import io.github.relock.core.internal.LockCommands;
import io.github.relock.core.internal.LockKeys;
import io.github.relock.core.internal.OwnerIds;
import io.github.relock.core.internal.RedisReentrantLock;
import io.github.relock.core.internal.ReleaseSubscriptions;

/**
 * Entry point: hands out {@link ReentrantDistributedLock}s that live in one Redis, and owns what they
 * share: the watchdog thread that renews leases and the pub/sub connection that wakes waiters.
 *
 * <pre>{@code
 * RedisLockClient client = RedisLockClient.builder(connectionFactory).keyPrefix("lock:").build();
 * ReentrantDistributedLock lock = client.getLock("order:42");
 * if (lock.tryLock(5, TimeUnit.SECONDS)) {
 *     try { ... } finally { lock.unlock(); }
 * }
 * client.close();
 * }</pre>
 *
 * <p>Use one client per application (it is thread-safe) and close it on shutdown: closing stops
 * renewals, so held locks then expire with their leases, and drops the pub/sub connection.
 */
public final class RedisLockClient implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisLockClient.class);

    /** Shortest watchdog timeout: renewal runs every third of it, and must beat network hiccups. */
    public static final Duration MIN_WATCHDOG_TIMEOUT = Duration.ofMillis(100);
    /** Longest watchdog timeout: a crashed holder blocks its lock this long at most. */
    public static final Duration MAX_WATCHDOG_TIMEOUT = Duration.ofDays(1);
    /** Longest lock name, in characters: a longer one is refused with an {@link IllegalArgumentException}. */
    public static final int MAX_NAME_LENGTH = Arguments.MAX_NAME_LENGTH;
    /** Default {@link Builder#fencingTokenRetention(Duration)}: a week. */
    public static final Duration DEFAULT_FENCING_TOKEN_RETENTION = Duration.ofDays(7);

    private final String keyPrefix;
    private final Duration watchdogTimeout;
    private final int minReplicas;
    private final Duration replicaAckTimeout;
    private final Duration fencingTokenRetention;
    private final ClientContext context;
    private final LeaseWatchdog watchdog;
    private final List<LockLostListener> lockLostListeners = new CopyOnWriteArrayList<>();
    private final AtomicLong ownerSequence = new AtomicLong();
    private volatile boolean closed;

    private RedisLockClient(Builder builder) {
        this.keyPrefix = builder.keyPrefix;
        this.watchdogTimeout = builder.watchdogTimeout;
        this.minReplicas = builder.minReplicas;
        this.fencingTokenRetention = builder.fencingTokenRetention;
        this.replicaAckTimeout = builder.replicaAckTimeout != null ? builder.replicaAckTimeout
                : defaultReplicaAckTimeout(watchdogTimeout);
        if (minReplicas > 0 && replicaAckTimeout.compareTo(watchdogTimeout.dividedBy(3)) >= 0) {
            throw new IllegalArgumentException("replicaAckTimeout (" + replicaAckTimeout + ") must be shorter than the "
                    + "renewal interval, watchdogTimeout / 3 (" + watchdogTimeout.dividedBy(3) + ")");
        }
        // random per instance even with a chosen name: a replayed command is recognised by its owner id, so
        // two live instances (or a restart while the old one's leases run) must never share one
        String clientId = builder.clientId != null ? builder.clientId + "-" + instanceSuffix()
                : UUID.randomUUID().toString();
        LockCommands commands = new LockCommands(builder.connectionFactory, minReplicas, replicaAckTimeout.toMillis(),
                fencingTokenRetention.toMillis());
        HoldRegistry holds = new HoldRegistry();
        ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(builder.connectionFactory,
                keyPrefix + "__relock_client__:" + clientId);
        this.context = new ClientContext(clientId, new OwnerIds(clientId), commands, holds, subscriptions,
                watchdogTimeout.toMillis(), this::checkOpen);
        this.lockLostListeners.addAll(builder.lockLostListeners);
        this.watchdog = new LeaseWatchdog(holds, commands, watchdogTimeout.toMillis(),
                "relock-watchdog-" + clientId, this::reportLost);
    }

    /** 48 random bits, in hex. */
    private static String instanceSuffix() {
        return Long.toHexString(UUID.randomUUID().getLeastSignificantBits() & 0xFFFF_FFFF_FFFFL);
    }

    /** Starts a client over a spring-data-redis connection factory (Lettuce recommended). */
    public static Builder builder(RedisConnectionFactory connectionFactory) {
        return new Builder(connectionFactory);
    }

    /**
     * A handle on the lock called {@code name}, owned by whichever thread calls it. Handles are cheap:
     * there is no need to cache them.
     *
     * @throws IllegalArgumentException if the name is null, blank or longer than {@link #MAX_NAME_LENGTH}
     */
    public ReentrantDistributedLock getLock(String name) {
        checkOpen();
        return new RedisReentrantLock(LockKeys.of(keyPrefix, Arguments.lockName(name)), context, null);
    }

    /**
     * A handle on the lock called {@code name}, owned by {@code owner} instead of a thread: acquire on
     * one thread, release on another.
     */
    public ReentrantDistributedLock getLock(String name, LockOwner owner) {
        checkOpen();
        Objects.requireNonNull(owner, "owner must not be null");
        if (!owner.id().startsWith(context.clientId() + ":")) {
            throw new IllegalArgumentException("owner " + owner + " was created by another RedisLockClient");
        }
        return new RedisReentrantLock(LockKeys.of(keyPrefix, Arguments.lockName(name)), context, owner.id());
    }

    /** A new owner for work that moves between threads; see {@link LockOwner}. */
    public LockOwner newOwner() {
        return new LockOwner(context.clientId() + ":owner-" + ownerSequence.incrementAndGet());
    }

    /** Adds a listener for locks the watchdog finds lost. */
    public void addLockLostListener(LockLostListener listener) {
        lockLostListeners.add(Objects.requireNonNull(listener, "listener must not be null"));
    }

    public void removeLockLostListener(LockLostListener listener) {
        lockLostListeners.remove(listener);
    }

    /** The locks this client's owners hold, as last seen locally. */
    public List<HeldLock> heldLocks() {
        List<HeldLock> held = new ArrayList<>();
        for (Hold hold : context.holds().all()) {
            if (!hold.lost()) {
                held.add(new HeldLock(hold.keys().name(), hold.keys().lock(), hold.ownerId(), hold.ownerThread(),
                        hold.count(), hold.fencingToken(), hold.acquiredAt(), hold.leaseExpiresAt(), hold.watchdog()));
            }
        }
        return held;
    }

    /** The id that starts every owner id of this client: random, or the configured name and a random suffix. */
    public String getClientId() {
        return context.clientId();
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    /** Replicas that must acknowledge an acquisition; 0 (the default) for none. See {@link Builder#minReplicas(int)}. */
    public int getMinReplicas() {
        return minReplicas;
    }

    /** How long an acquisition or renewal waits for replicas to acknowledge it (only with {@code minReplicas > 0}). */
    public Duration getReplicaAckTimeout() {
        return replicaAckTimeout;
    }

    /** How long a lock's fencing counter is kept after it last changed. See {@link Builder#fencingTokenRetention(Duration)}. */
    public Duration getFencingTokenRetention() {
        return fencingTokenRetention;
    }

    /** The default {@link Builder#replicaAckTimeout(Duration)}: a tenth of the watchdog timeout, at most 1 s. */
    static Duration defaultReplicaAckTimeout(Duration watchdogTimeout) {
        Duration tenth = watchdogTimeout.dividedBy(10);
        return tenth.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1)
                : tenth.isZero() ? Duration.ofMillis(1) : tenth;
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops renewing leases and drops the pub/sub connection. Locks still held are not released: they
     * expire when their leases end. Threads waiting for a lock get an {@link IllegalStateException}.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        watchdog.close();
        context.subscriptions().close();
        context.holds().clear();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("RedisLockClient " + context.clientId() + " is closed");
        }
    }

    private void reportLost(Hold hold) {
        LockLostEvent event = new LockLostEvent(hold.keys().name(), hold.keys().lock(), hold.ownerId(),
                hold.fencingToken(), Instant.now());
        log.warn("Lock '{}' held by {} was lost: its lease ended before the watchdog could renew it", event.lockName(),
                event.ownerId());
        for (LockLostListener listener : lockLostListeners) {
            try {
                listener.lockLost(event);
            }
            catch (Throwable ex) {
                // one listener's failure, even an Error, must reach neither the others nor the watchdog
                log.error("LockLostListener {} failed", listener, ex);
            }
        }
    }

    /** Settings for a {@link RedisLockClient}; every one has a default. */
    public static final class Builder {

        private final RedisConnectionFactory connectionFactory;
        private String keyPrefix = "lock:";
        private Duration watchdogTimeout = Duration.ofSeconds(30);
        private String clientId;
        private int minReplicas;
        private Duration replicaAckTimeout;
        private Duration fencingTokenRetention = DEFAULT_FENCING_TOKEN_RETENTION;
        private final List<LockLostListener> lockLostListeners = new ArrayList<>();

        private Builder(RedisConnectionFactory connectionFactory) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
        }

        /**
         * Prepended to every lock name to form its Redis key (default {@code "lock:"}). Must not contain
         * braces: the lock name is what goes in the Cluster hash tag.
         */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
                throw new IllegalArgumentException("keyPrefix must not be null or contain '{' or '}', was " + keyPrefix);
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * The lease of locks taken without one (default 30 s). The watchdog renews them every third of
         * it while held; a crashed holder's lock frees after at most this long.
         */
        public Builder watchdogTimeout(Duration watchdogTimeout) {
            if (watchdogTimeout == null || watchdogTimeout.compareTo(MIN_WATCHDOG_TIMEOUT) < 0
                    || watchdogTimeout.compareTo(MAX_WATCHDOG_TIMEOUT) > 0) {
                throw new IllegalArgumentException("watchdogTimeout must be between " + MIN_WATCHDOG_TIMEOUT + " and "
                        + MAX_WATCHDOG_TIMEOUT + ", was " + watchdogTimeout);
            }
            this.watchdogTimeout = watchdogTimeout;
            return this;
        }

        /**
         * A readable name for this client, such as the host name (default: none, the client id is a random
         * UUID). The client id becomes this name, a dash and 48 random bits ({@code host1-3fa85f64c2b1}), so
         * it still differs between two instances given the same name, or between a restarted process and
         * its predecessor whose leases have not ended yet: they never share an owner.
         */
        public Builder clientId(String clientId) {
            if (clientId == null || clientId.isBlank() || clientId.indexOf(':') >= 0) {
                throw new IllegalArgumentException("clientId must not be null, blank or contain ':', was " + clientId);
            }
            this.clientId = clientId;
            return this;
        }

        /**
         * Replicas that must acknowledge an acquisition before it counts (default 0: none, Redis
         * replication stays asynchronous). Redis replicates asynchronously, so a primary that fails
         * over right after granting a lock can hand it to a second owner from a replica that never saw
         * it. With {@code minReplicas > 0}, each first acquisition is followed, on the connection that
         * ran it, by {@code WAIT minReplicas replicaAckTimeout}:
         * <ul>
         * <li>acknowledged by fewer replicas: the lock is released at once and the attempt counts as
         * not acquired: {@link ReentrantDistributedLock#tryLock()} returns false, a waiting call tries
         * again (each attempt waits for the replicas again) until its wait time ends, {@code lock()}
         * until a replica acknowledges. Fail closed: with fewer replicas than required, no lock is
         * ever granted;</li>
         * <li>lease renewals are followed by the same WAIT; one that too few replicas acknowledged is
         * logged (the lock stays held on the primary, but a failover would keep only the lease a
         * replica last saw).</li>
         * </ul>
         * Re-entry and release do not wait. This narrows, but does not close, the failover window:
         * WAIT does not make Redis strongly consistent (a failover may still promote a replica that
         * had not acknowledged), so keep using fencing tokens where a double grant must not corrupt
         * data. Not supported on Redis Cluster connections ({@link IllegalArgumentException} at
         * {@link #build()}). Starter property: {@code relock.min-replicas}.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder minReplicas(int minReplicas) {
            if (minReplicas < 0) {
                throw new IllegalArgumentException("minReplicas must not be negative, was " + minReplicas);
            }
            this.minReplicas = minReplicas;
            return this;
        }

        /**
         * How long WAIT waits for {@link #minReplicas(int) minReplicas} to acknowledge (default: a tenth of
         * the watchdog timeout, at most 1 s). It bounds what an acquisition costs when replicas lag, and
         * must be shorter than the renewal interval ({@code watchdogTimeout / 3}).
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder replicaAckTimeout(Duration replicaAckTimeout) {
            if (replicaAckTimeout == null || replicaAckTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("replicaAckTimeout must be at least 1 ms, was " + replicaAckTimeout);
            }
            this.replicaAckTimeout = replicaAckTimeout;
            return this;
        }

        /**
         * How long each lock's fencing counter ({@code <key>:fence}, about 200 bytes of Redis memory) is kept
         * after it last changed, that is after the lock was last taken or released (default 7 days). Tokens grow
         * by one per acquisition while the counter is there; once it is gone they start again from the Redis
         * server's clock (microseconds), which is still larger unless that clock went back by more than
         * this retention. The cost is memory: one counter per lock name used within the retention.
         *
         * @throws IllegalArgumentException if shorter than 1 second or longer than 365 days
         */
        public Builder fencingTokenRetention(Duration retention) {
            if (retention == null || retention.compareTo(Duration.ofSeconds(1)) < 0
                    || retention.compareTo(Arguments.MAX_LEASE) > 0) {
                throw new IllegalArgumentException("fencingTokenRetention must be between 1s and "
                        + Arguments.MAX_LEASE.toDays() + " days, was " + retention);
            }
            this.fencingTokenRetention = retention;
            return this;
        }

        /** Adds a listener for locks the watchdog finds lost. */
        public Builder lockLostListener(LockLostListener listener) {
            lockLostListeners.add(Objects.requireNonNull(listener, "lockLostListener must not be null"));
            return this;
        }

        public RedisLockClient build() {
            return new RedisLockClient(this);
        }
    }
}
