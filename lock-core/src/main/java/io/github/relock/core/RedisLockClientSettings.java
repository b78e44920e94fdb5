package io.github.relock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The settings of a {@link RedisLockClient}, and the one home of their rules: the client's builder checks
 * each value through here, and so does the starter's {@code relock.*} binding, which names the property in
 * its message.
 *
 * @param keyPrefix             prepended to every lock name: no braces
 * @param watchdogTimeout       lease of locks taken without one: 100 ms to 1 day
 * @param clientName            a readable start of the client id, without {@code ':'}; null for a random id
 * @param minReplicas           replicas that must acknowledge an acquisition: not negative
 * @param replicaAckTimeout     how long WAIT waits: at least 1 ms and shorter than a third of the watchdog
 *                              timeout (null: a tenth of it, at most 1 s)
 * @param fencingTokenRetention how long a fencing counter is kept after it last changed: 1 s to 365 days
 */
public record RedisLockClientSettings(String keyPrefix, Duration watchdogTimeout, @Nullable String clientName,
        int minReplicas, Duration replicaAckTimeout, Duration fencingTokenRetention) {

    /** Shortest watchdog timeout: renewal runs every third of it, and must beat network hiccups. */
    public static final Duration MIN_WATCHDOG_TIMEOUT = Duration.ofMillis(100);
    /** Longest watchdog timeout: a crashed holder blocks its lock this long at most. */
    public static final Duration MAX_WATCHDOG_TIMEOUT = Duration.ofDays(1);
    /** Default fencing token retention: a week. */
    public static final Duration DEFAULT_FENCING_TOKEN_RETENTION = Duration.ofDays(7);

    /** @throws IllegalArgumentException naming the setting that is out of range */
    public RedisLockClientSettings {
        checkKeyPrefix(keyPrefix);
        checkWatchdogTimeout(watchdogTimeout);
        if (clientName != null) {
            checkClientName(clientName);
        }
        checkMinReplicas(minReplicas);
        checkReplicaAckTimeout(replicaAckTimeout, watchdogTimeout, minReplicas);
        checkFencingTokenRetention(fencingTokenRetention);
    }

    public static String checkKeyPrefix(String keyPrefix) {
        if (keyPrefix == null || keyPrefix.isBlank() || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("keyPrefix must not be blank, and must not contain braces (the lock name "
                    + "goes in the Redis Cluster hash tag), was '" + keyPrefix + "'");
        }
        return keyPrefix;
    }

    public static Duration checkWatchdogTimeout(Duration watchdogTimeout) {
        if (watchdogTimeout == null || watchdogTimeout.compareTo(MIN_WATCHDOG_TIMEOUT) < 0
                || watchdogTimeout.compareTo(MAX_WATCHDOG_TIMEOUT) > 0) {
            throw new IllegalArgumentException("watchdogTimeout must be between 100ms and 1d (renewal runs every "
                    + "third of it; a crashed holder blocks its locks this long), was " + watchdogTimeout);
        }
        return watchdogTimeout;
    }

    public static String checkClientName(String clientName) {
        if (clientName == null || clientName.isBlank() || clientName.indexOf(':') >= 0) {
            throw new IllegalArgumentException("clientId must not be blank or contain ':', was '" + clientName + "'");
        }
        return clientName;
    }

    public static int checkMinReplicas(int minReplicas) {
        if (minReplicas < 0) {
            throw new IllegalArgumentException("minReplicas cannot be negative, was " + minReplicas);
        }
        return minReplicas;
    }

    /** @param minReplicas the bound against the renewal interval matters only when replicas are awaited */
    public static Duration checkReplicaAckTimeout(Duration replicaAckTimeout, Duration watchdogTimeout,
            int minReplicas) {
        if (replicaAckTimeout == null || replicaAckTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("replicaAckTimeout must be at least 1 ms, was " + replicaAckTimeout);
        }
        if (minReplicas > 0 && replicaAckTimeout.compareTo(watchdogTimeout.dividedBy(3)) >= 0) {
            throw new IllegalArgumentException("replicaAckTimeout (" + replicaAckTimeout + ") must be shorter than the "
                    + "renewal interval, watchdogTimeout / 3 (" + watchdogTimeout.dividedBy(3) + ")");
        }
        return replicaAckTimeout;
    }

    /**
     * How much shorter than the driver's command timeout a replica acknowledgement timeout must be: Redis ends a
     * timed-out WAIT at its next timer tick (every 100 ms at the default {@code hz 10}), not at the timeout itself.
     */
    public static final Duration REPLICA_ACK_MARGIN = Duration.ofMillis(200);

    /**
     * A WAIT that outlasts the driver's command timeout is given up by the client while Redis still blocks the
     * connection in it: the acquisition then fails with a timeout instead of a clean refusal, and what is sent
     * after it (the give-back) queues behind it. A command timeout of zero or less is none (Lettuce's rule).
     *
     * @throws IllegalArgumentException if {@code replicaAckTimeout} is not at least {@link #REPLICA_ACK_MARGIN}
     *                                  shorter than a positive {@code commandTimeout}
     */
    public static Duration checkReplicaAckTimeoutBelow(Duration replicaAckTimeout, Duration commandTimeout) {
        if (commandTimeout.compareTo(Duration.ZERO) > 0
                && replicaAckTimeout.plus(REPLICA_ACK_MARGIN).compareTo(commandTimeout) > 0) {
            throw new IllegalArgumentException("replicaAckTimeout (" + replicaAckTimeout + ") must be at least "
                    + REPLICA_ACK_MARGIN.toMillis() + "ms shorter than the connection factory's command timeout ("
                    + commandTimeout + "): Redis ends a timed-out WAIT at its next timer tick, and the client would "
                    + "give up on a WAIT that Redis still blocks the connection in");
        }
        return replicaAckTimeout;
    }

    public static Duration checkFencingTokenRetention(Duration retention) {
        if (retention == null || retention.compareTo(Duration.ofSeconds(1)) < 0
                || retention.compareTo(LockSettings.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("fencingTokenRetention must be between 1s and "
                    + LockSettings.MAX_LEASE.toDays() + " days, was " + retention);
        }
        return retention;
    }

    /** The default replica acknowledgement timeout: a tenth of the watchdog timeout, at most 1 s. */
    public static Duration defaultReplicaAckTimeout(Duration watchdogTimeout) {
        Duration tenth = watchdogTimeout.dividedBy(10);
        return tenth.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1)
                : tenth.isZero() ? Duration.ofMillis(1) : tenth;
    }
}
