package io.github.relock.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

import io.github.relock.core.LockSettings;
import io.github.relock.spring.internal.DistributedLockAdvisor;
import io.github.relock.spring.internal.LockTimingDefaults;
import io.github.relock.spring.internal.SelfInvocationReaction;

/**
 * {@code relock.*}: the lock client and the defaults of every {@code @DistributedLock} method, with
 * per-lock-name overrides under {@code relock.locks.<name>}. Checked at startup by
 * {@link RelockPropertiesCheck}: an invalid value stops it with a message that says what to change.
 */
@ConfigurationProperties("relock")
public class RelockProperties implements LockTimingDefaults {

    /**
     * How long a @DistributedLock call may hold its lock at most: a call still holding it after that (a
     * hung method, a future that never completes) loses it, released at the next watchdog round and
     * reported lost. Empty: no limit.
     */
    private @Nullable Duration maxHold;

    /**
     * How long each lock's fencing counter is kept in Redis after it last changed (about 200 bytes per lock
     * name). Fencing tokens can only go backwards if the counter is gone and the Redis server's clock went
     * back by more than this. Between 1s and 365d.
     */
    private Duration fencingTokenRetention = Duration.ofDays(7); // a literal, so that the IDE metadata shows it

    /**
     * Whether @DistributedLock methods are locked. Exactly true or false (any case): false runs every annotated
     * method without its lock, and logs one warning naming them; any other value fails startup.
     */
    private boolean enabled = true;

    /**
     * Bean name of the RedisConnectionFactory to lock with. Needed only when the application has several
     * factories and none is @Primary. Empty: the only factory, or the @Primary one.
     */
    private @Nullable String connectionFactory;

    /** Prepended to every lock name to form its Redis key: lock:{name}. Must not be blank or contain braces. */
    private String keyPrefix = "lock:";

    /** How long a call waits for its lock before giving up; 0s makes a single attempt. */
    private Duration waitTime = Duration.ofSeconds(5);

    /**
     * A fixed lease for every lock: it ends this long after it was taken, even if the method still runs.
     * Empty: the watchdog keeps the lock for as long as the method runs.
     */
    private @Nullable Duration leaseTime;

    /**
     * Lease of locks taken without a fixed one, renewed every third of it while held. A crashed holder
     * blocks its locks at most this long. Between 100ms and 1d.
     */
    private Duration watchdogTimeout = Duration.ofSeconds(30);

    /**
     * Order of the lock advice. The default puts it outside @Transactional (which defaults to the lowest
     * precedence), so the lock is released after the transaction commits.
     */
    private int aspectOrder = DistributedLockAdvisor.DEFAULT_ORDER;

    /**
     * What startup does when a bean calls one of its own @DistributedLock methods (this.pay(...)): such a call
     * skips the bean's proxy, so that method runs without its lock. warn: log a warning naming both methods;
     * fail: fail startup; ignore: say nothing.
     */
    private SelfInvocationReaction selfInvocation = SelfInvocationReaction.WARN;

    /**
     * A readable name for this instance's lock client, such as the host name, without colons. The client
     * id (the first part of every owner id in Redis) is this name, a dash and a random suffix, so two
     * instances given the same name still never share an owner. Empty: the client id is a random UUID.
     */
    private @Nullable String clientName;

    /** The former key of client-name; client-name wins when both are set. */
    private @Nullable String clientId;

    /**
     * Replicas that must acknowledge an acquisition (Redis WAIT) before it counts; 0: none. Narrows the
     * window in which a failover can grant a lock twice; fail closed: with fewer replicas up, no lock is
     * granted. Not for Redis Cluster.
     */
    private int minReplicas;

    /**
     * How long an acquisition or renewal waits for min-replicas to acknowledge; shorter than a third of
     * the watchdog timeout and than the Redis command timeout. Empty: a tenth of the watchdog timeout, at most 1s.
     */
    private @Nullable Duration replicaAckTimeout;

    /** Per-lock-name overrides, for @DistributedLock(name = "payments") and the like. */
    private Map<String, Lock> locks = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable String getConnectionFactory() {
        return connectionFactory;
    }

    public void setConnectionFactory(@Nullable String connectionFactory) {
        this.connectionFactory = connectionFactory;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getWaitTime() {
        return waitTime;
    }

    public void setWaitTime(Duration waitTime) {
        this.waitTime = waitTime;
    }

    public @Nullable Duration getLeaseTime() {
        return leaseTime;
    }

    public void setLeaseTime(@Nullable Duration leaseTime) {
        this.leaseTime = leaseTime;
    }

    public Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    public void setWatchdogTimeout(Duration watchdogTimeout) {
        this.watchdogTimeout = watchdogTimeout;
    }

    public SelfInvocationReaction getSelfInvocation() {
        return selfInvocation;
    }

    public void setSelfInvocation(SelfInvocationReaction selfInvocation) {
        this.selfInvocation = selfInvocation;
    }

    public int getAspectOrder() {
        return aspectOrder;
    }

    public void setAspectOrder(int aspectOrder) {
        this.aspectOrder = aspectOrder;
    }

    public @Nullable String getClientName() {
        return clientName;
    }

    public void setClientName(@Nullable String clientName) {
        this.clientName = clientName;
    }

    /**
     * The former key of {@code relock.client-name}, which it still sets (a client id is that name plus a random
     * suffix).
     *
     * @deprecated use {@code relock.client-name}: {@link #getClientName()}
     */
    @Deprecated
    @DeprecatedConfigurationProperty(replacement = "relock.client-name",
            reason = "The client id is this name plus a random suffix")
    public @Nullable String getClientId() {
        return clientId;
    }

    /** @deprecated use {@link #setClientName(String)} */
    @Deprecated
    public void setClientId(@Nullable String clientId) {
        this.clientId = clientId;
    }

    /**
     * The client name in effect: {@code relock.client-name}, else the deprecated {@code relock.client-id};
     * null for a random client id.
     */
    @Nullable String effectiveClientName() {
        return clientName != null ? clientName : clientId;
    }

    /** The key that set {@link #effectiveClientName()}, for messages. */
    String clientNameKey() {
        return clientName != null ? "relock.client-name" : "relock.client-id";
    }

    public int getMinReplicas() {
        return minReplicas;
    }

    public void setMinReplicas(int minReplicas) {
        this.minReplicas = minReplicas;
    }

    public @Nullable Duration getReplicaAckTimeout() {
        return replicaAckTimeout;
    }

    public void setReplicaAckTimeout(@Nullable Duration replicaAckTimeout) {
        this.replicaAckTimeout = replicaAckTimeout;
    }

    public @Nullable Duration getMaxHold() {
        return maxHold;
    }

    public void setMaxHold(@Nullable Duration maxHold) {
        this.maxHold = maxHold;
    }

    public Duration getFencingTokenRetention() {
        return fencingTokenRetention;
    }

    public void setFencingTokenRetention(Duration fencingTokenRetention) {
        this.fencingTokenRetention = fencingTokenRetention;
    }

    public Map<String, Lock> getLocks() {
        return locks;
    }

    public void setLocks(Map<String, Lock> locks) {
        this.locks = locks;
    }

    /** The settings for a logical lock name: its {@code relock.locks} entry where set, else the defaults. */
    @Override
    public LockSettings forLock(String name) {
        Lock lock = locks.get(name);
        Duration wait = lock != null && lock.getWaitTime() != null ? lock.getWaitTime() : waitTime;
        Duration lease = lock != null && lock.getLeaseTime() != null ? lock.getLeaseTime() : leaseTime;
        Duration max = lock != null && lock.getMaxHold() != null ? lock.getMaxHold() : maxHold;
        return new LockSettings(wait, lease, max);
    }

    /** Whether {@code relock.locks.<name>.fair} is set for a logical lock name. */
    @Override
    public boolean fair(String name) {
        Lock lock = locks.get(name);
        return lock != null && lock.isFair();
    }

    /** Overrides for one logical lock name; what is left empty comes from {@code relock.*}. */
    public static class Lock {

        /** How long a call waits for this lock; empty: relock.wait-time. */
        private @Nullable Duration waitTime;

        /** Fixed lease of this lock; empty: relock.lease-time (or the watchdog if that is empty too). */
        private @Nullable Duration leaseTime;

        /** How long a call may hold this lock at most before it is released and reported lost; empty: relock.max-hold. */
        private @Nullable Duration maxHold;

        /**
         * Whether this lock is fair: its callers get it first come, first served, across instances. Only for
         * exclusive locks (mode EXCLUSIVE), as {@code @DistributedLock(fair = true)}.
         */
        private boolean fair;

        public boolean isFair() {
            return fair;
        }

        public void setFair(boolean fair) {
            this.fair = fair;
        }

        public @Nullable Duration getMaxHold() {
            return maxHold;
        }

        public void setMaxHold(@Nullable Duration maxHold) {
            this.maxHold = maxHold;
        }

        public @Nullable Duration getWaitTime() {
            return waitTime;
        }

        public void setWaitTime(@Nullable Duration waitTime) {
            this.waitTime = waitTime;
        }

        public @Nullable Duration getLeaseTime() {
            return leaseTime;
        }

        public void setLeaseTime(@Nullable Duration leaseTime) {
            this.leaseTime = leaseTime;
        }
    }
}
