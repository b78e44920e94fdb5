package io.github.relock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.internal.client.ClientRuntime;
import io.github.relock.core.internal.settings.SettingRules;

/**
 * The {@link DistributedLockClient} on Redis: hands out {@link ReentrantDistributedLock}s that live in one
 * Redis, and owns what they share: the watchdog thread that renews leases and the pub/sub connection that
 * wakes waiters.
 *
 * <pre>{@code
 * RedisLockClient client = RedisLockClient.builder(connectionFactory).keyPrefix("lock:").build();
 * ReentrantDistributedLock lock = client.getLock("order:42");
 * if (lock.tryLock(5, TimeUnit.SECONDS)) { try { ... } finally { lock.unlock(); } }
 * client.close();
 * }</pre>
 *
 * <p>Use one client per application (it is thread-safe) and close it on shutdown: closing stops
 * renewals, so held locks then expire with their leases, and drops the pub/sub connection.
 */
public final class RedisLockClient implements DistributedLockClient {

    /** Shortest watchdog timeout: renewal runs every third of it, and must beat network hiccups. */
    public static final Duration MIN_WATCHDOG_TIMEOUT = RedisLockClientSettings.MIN_WATCHDOG_TIMEOUT;
    /** Longest watchdog timeout: a crashed holder blocks its lock this long at most. */
    public static final Duration MAX_WATCHDOG_TIMEOUT = RedisLockClientSettings.MAX_WATCHDOG_TIMEOUT;
    /** Longest lock name, in characters: a longer one is refused with an {@link IllegalArgumentException}. */
    public static final int MAX_NAME_LENGTH = LockNames.MAX_LENGTH;
    /** Default {@link Builder#fencingTokenRetention(Duration)}: a week. */
    public static final Duration DEFAULT_FENCING_TOKEN_RETENTION = RedisLockClientSettings.DEFAULT_FENCING_TOKEN_RETENTION;

    private final RedisLockClientSettings settings;
    private final ClientRuntime runtime;

    private RedisLockClient(RedisConnectionFactory factory, RedisLockClientSettings settings,
            List<LockLostListener> listeners, @Nullable Executor lockLostExecutor) {
        this.settings = settings;
        this.runtime = new ClientRuntime(factory, settings, listeners, lockLostExecutor);
    }

    /** Starts a client over a spring-data-redis Lettuce connection factory; Jedis is refused at {@link Builder#build()}. */
    public static Builder builder(RedisConnectionFactory connectionFactory) {
        return new Builder(connectionFactory);
    }

    @Override
    public ReentrantDistributedLock getLock(String name) {
        return runtime.lock(name, null);
    }

    @Override
    public ReentrantDistributedLock getLock(String name, LockOwner owner) {
        return runtime.lock(name, Objects.requireNonNull(owner, "owner must not be null").id());
    }

    @Override
    public ReentrantDistributedLock getFairLock(String name) {
        return runtime.fairLock(name, null);
    }

    @Override
    public ReentrantDistributedLock getFairLock(String name, LockOwner owner) {
        return runtime.fairLock(name, Objects.requireNonNull(owner, "owner must not be null").id());
    }

    @Override
    public ReadWriteDistributedLock getReadWriteLock(String name) {
        return runtime.readWriteLock(name, null);
    }

    @Override
    public ReadWriteDistributedLock getReadWriteLock(String name, LockOwner owner) {
        return runtime.readWriteLock(name, Objects.requireNonNull(owner, "owner must not be null").id());
    }

    @Override
    public MultiLock getMultiLock(String... names) {
        return runtime.multiLock(Arrays.asList(names), null);
    }

    @Override
    public MultiLock getMultiLock(Collection<String> names, @Nullable LockOwner owner) {
        return runtime.multiLock(names, owner == null ? null : owner.id());
    }

    /** Where the lock called {@code name} lives in Redis: its hash, fencing counter and release channel. */
    public LockRedisKeys redisKeys(String name) {
        return runtime.redisKeys(name);
    }

    @Override
    public LockOwner newOwner() {
        return new LockOwner(runtime.newOwnerId());
    }

    @Override
    public void addLockLostListener(LockLostListener listener) {
        runtime.addLockLostListener(listener);
    }

    @Override
    public void removeLockLostListener(LockLostListener listener) {
        runtime.removeLockLostListener(listener);
    }

    @Override
    public List<HeldLock> heldLocks() {
        return runtime.heldLocks();
    }

    /** The id that starts every owner id of this client: random, or the configured name and a random suffix. */
    @Override
    public String getClientId() {
        return runtime.clientId();
    }

    public String getKeyPrefix() {
        return settings.keyPrefix();
    }

    public Duration getWatchdogTimeout() {
        return settings.watchdogTimeout();
    }

    /** Replicas that must acknowledge an acquisition; 0 (the default) for none. See {@link Builder#minReplicas(int)}. */
    public int getMinReplicas() {
        return settings.minReplicas();
    }

    /** How long an acquisition or renewal waits for replicas to acknowledge it (only with {@code minReplicas > 0}). */
    public Duration getReplicaAckTimeout() {
        return settings.replicaAckTimeout();
    }

    /** How long a lock's fencing counter is kept after it last changed. See {@link Builder#fencingTokenRetention(Duration)}. */
    public Duration getFencingTokenRetention() {
        return settings.fencingTokenRetention();
    }

    @Override
    public boolean isClosed() {
        return runtime.isClosed();
    }

    /** Stops renewals, drops the pub/sub connection; held locks expire, waiters get an IllegalStateException. */
    @Override
    public void close() {
        runtime.close();
    }

    /** Settings for a {@link RedisLockClient}; every one has a default, and each is checked when set. */
    public static final class Builder {

        private final RedisConnectionFactory connectionFactory;
        private String keyPrefix = "lock:";
        private Duration watchdogTimeout = Duration.ofSeconds(30);
        private @Nullable String clientName;
        private int minReplicas;
        private @Nullable Duration replicaAckTimeout;
        private Duration fencingTokenRetention = DEFAULT_FENCING_TOKEN_RETENTION;
        private final List<LockLostListener> lockLostListeners = new ArrayList<>();
        private @Nullable Executor lockLostExecutor;

        private Builder(RedisConnectionFactory connectionFactory) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
        }

        /**
         * Prepended to every lock name to form its Redis key (default {@code "lock:"}). Must not be blank or
         * contain braces: the lock name is what goes in the Cluster hash tag.
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = SettingRules.checkKeyPrefix(keyPrefix);
            return this;
        }

        /** Lease of locks taken without one (default 30 s, 100 ms to 1 day), renewed every third of it while held. */
        public Builder watchdogTimeout(Duration watchdogTimeout) {
            this.watchdogTimeout = SettingRules.checkWatchdogTimeout(watchdogTimeout);
            return this;
        }

        /**
         * A readable name for this client, such as the host name (default: none, a random UUID). The client id
         * becomes this name, a dash and 48 random bits ({@code host1-3fa85f64c2b1}): two instances given one
         * name, or a restarted process and its predecessor, never share an owner. Refused if blank, or with a
         * {@code ':'} or half of a UTF-16 surrogate pair in it.
         */
        public Builder clientId(String clientName) {
            this.clientName = SettingRules.checkClientName(clientName);
            return this;
        }

        /**
         * Replicas that must acknowledge a first acquisition before it counts (default 0: none): each first
         * acquisition and renewal is followed by {@code WAIT minReplicas replicaAckTimeout} on a connection of
         * its own. Too few acknowledgements: the acquisition is released and counts as not acquired (fail
         * closed), a renewal reports the hold lost before the replicas' lease ends. This narrows the failover
         * window, it does not close it (WAIT is not consensus): keep using fencing tokens. Not for Redis Cluster
         * ({@link IllegalArgumentException} at {@link #build()}), nor for read-write and fair locks yet.
         */
        public Builder minReplicas(int minReplicas) {
            this.minReplicas = SettingRules.checkMinReplicas(minReplicas);
            return this;
        }

        /**
         * How long WAIT waits for {@link #minReplicas(int) minReplicas} to acknowledge (default: a tenth of
         * the watchdog timeout, at most 1 s). It bounds what an acquisition costs when replicas lag, and
         * must be shorter than the renewal interval ({@code watchdogTimeout / 3}).
         */
        public Builder replicaAckTimeout(Duration replicaAckTimeout) {
            this.replicaAckTimeout = SettingRules.checkReplicaAckTimeout(replicaAckTimeout,
                    RedisLockClientSettings.MAX_WATCHDOG_TIMEOUT, 0);
            return this;
        }

        /**
         * How long each lock's fencing counter ({@code <key>:fence}, about 200 bytes) is kept after the lock was
         * last taken or released (default 7 days, 1 s to 365 days). Once it is gone, tokens start again from the
         * Redis server's clock (µs), still larger unless that clock went back by more than this retention.
         */
        public Builder fencingTokenRetention(Duration retention) {
            this.fencingTokenRetention = SettingRules.checkFencingTokenRetention(retention);
            return this;
        }

        /** Adds a listener for locks found lost while held. */
        public Builder lockLostListener(LockLostListener listener) {
            lockLostListeners.add(Objects.requireNonNull(listener, "lockLostListener must not be null"));
            return this;
        }

        /**
         * Where lost-lock listeners are called (default: one thread of the client's own, which calls them one
         * event after another). A listener that blocks then holds up only the listeners after it, never renewal
         * or waiting. The executor is the caller's: the client does not shut it down, and stops handing it events
         * when closed; an executor with several threads may call listeners for two events at once.
         */
        public Builder lockLostExecutor(Executor executor) {
            this.lockLostExecutor = Objects.requireNonNull(executor, "lockLostExecutor must not be null");
            return this;
        }

        /** @throws IllegalArgumentException if the settings do not fit together, or {@link UnsupportedRedisDriverException} */
        public RedisLockClient build() {
            Duration ackTimeout = replicaAckTimeout != null ? replicaAckTimeout
                    : RedisLockClientSettings.defaultReplicaAckTimeout(watchdogTimeout);
            return new RedisLockClient(connectionFactory, new RedisLockClientSettings(keyPrefix, watchdogTimeout,
                    clientName, minReplicas, ackTimeout, fencingTokenRetention), lockLostListeners, lockLostExecutor);
        }
    }
}
