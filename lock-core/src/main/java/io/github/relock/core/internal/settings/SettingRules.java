package io.github.relock.core.internal.settings;

import java.time.Duration;

/**
 * The range rules of lock names and settings, in one place: {@link io.github.relock.core.LockSettings}, {@link io.github.relock.core.RedisLockClientSettings}
 * and {@link io.github.relock.core.LockNames} check their values here, and so does the starter's {@code relock.*} binding, which names
 * the property in its message. Each check returns its value, or throws an {@link IllegalArgumentException} that
 * says what is allowed. The limits live here too, so that the rules depend on nothing above them; the public
 * settings show them under their own names ({@link io.github.relock.core.LockSettings#MAX_LEASE} and the like).
 */
public final class SettingRules {

    /** Longest lease, maximum hold and fencing counter retention (see {@link io.github.relock.core.LockSettings#MAX_LEASE}). */
    public static final Duration MAX_LEASE = Duration.ofDays(365);
    /** Shortest watchdog timeout (see {@link io.github.relock.core.RedisLockClientSettings#MIN_WATCHDOG_TIMEOUT}). */
    public static final Duration MIN_WATCHDOG_TIMEOUT = Duration.ofMillis(100);
    /** Longest watchdog timeout (see {@link io.github.relock.core.RedisLockClientSettings#MAX_WATCHDOG_TIMEOUT}). */
    public static final Duration MAX_WATCHDOG_TIMEOUT = Duration.ofDays(1);
    /** How much shorter than the command timeout WAIT's must be (see {@link io.github.relock.core.RedisLockClientSettings#REPLICA_ACK_MARGIN}). */
    public static final Duration REPLICA_ACK_MARGIN = Duration.ofMillis(200);
    /** What separates a logical name from its key (see {@link io.github.relock.core.LockNames#SEPARATOR}). */
    public static final char NAME_SEPARATOR = ':';
    /** Longest lock name, in characters (see {@link io.github.relock.core.LockNames#MAX_LENGTH}). */
    public static final int MAX_NAME_LENGTH = 1024;

    private SettingRules() {
    }

    /**
     * Checks a configured wait: not negative. ({@link java.util.concurrent.locks.Lock#tryLock(long,
     * java.util.concurrent.TimeUnit)} takes a negative wait as no wait; in settings it is a mistake.)
     *
     * @throws IllegalArgumentException if null or negative
     */
    public static Duration checkWaitTime(Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime cannot be negative (0s makes one attempt), was " + waitTime);
        }
        return waitTime;
    }

    /**
     * Checks a lease-like duration: between 1 ms and 365 days.
     *
     * @throws IllegalArgumentException naming {@code what}
     */
    public static Duration checkLease(String what, Duration duration) {
        if (duration == null || duration.compareTo(Duration.ofMillis(1)) < 0 || duration.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException(what + " must be between 1ms and " + MAX_LEASE.toDays()
                    + " days, was " + duration);
        }
        return duration;
    }

    /** A key prefix: not blank, no braces (the lock name goes in the Redis Cluster hash tag). */
    public static String checkKeyPrefix(String keyPrefix) {
        if (keyPrefix == null || keyPrefix.isBlank() || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("keyPrefix must not be blank, and must not contain braces (the lock name "
                    + "goes in the Redis Cluster hash tag), was '" + keyPrefix + "'");
        }
        return keyPrefix;
    }

    /** A watchdog timeout: between {@link io.github.relock.core.RedisLockClientSettings#MIN_WATCHDOG_TIMEOUT} and {@link io.github.relock.core.RedisLockClientSettings#MAX_WATCHDOG_TIMEOUT}. */
    public static Duration checkWatchdogTimeout(Duration watchdogTimeout) {
        if (watchdogTimeout == null || watchdogTimeout.compareTo(MIN_WATCHDOG_TIMEOUT) < 0
                || watchdogTimeout.compareTo(MAX_WATCHDOG_TIMEOUT) > 0) {
            throw new IllegalArgumentException("watchdogTimeout must be between 100ms and 1d (renewal runs every "
                    + "third of it; a crashed holder blocks its locks this long), was " + watchdogTimeout);
        }
        return watchdogTimeout;
    }

    /**
     * A client name: not blank, no {@code ':'} (it starts the owner ids), and text that UTF-8 can carry (no half of a
     * surrogate pair), since owner ids go to Redis in UTF-8 and come back in release announcements.
     */
    public static String checkClientName(String clientName) {
        if (clientName == null || clientName.isBlank() || clientName.indexOf(':') >= 0) {
            throw new IllegalArgumentException("clientId must not be blank or contain ':', was '" + clientName + "'");
        }
        for (int i = 0; i < clientName.length(); i++) {
            char c = clientName.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < clientName.length()
                    && Character.isLowSurrogate(clientName.charAt(i + 1))) {
                i++; // a whole pair: one character
            }
            else if (Character.isSurrogate(c)) {
                // UTF-8 carries no half pair: it would reach Redis as '?', and no announcement would match its waiters
                throw new IllegalArgumentException("clientId must be text that UTF-8 can carry: it has half of a "
                        + "surrogate pair at index " + i);
            }
        }
        return clientName;
    }

    /** A number of replicas to await: not negative. */
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
     * A WAIT that outlasts the driver's command timeout is given up by the client while Redis still blocks the
     * connection in it: the acquisition then fails with a timeout instead of a clean refusal, and what is sent
     * after it (the give-back) queues behind it. A command timeout of zero or less is none (Lettuce's rule).
     *
     * @throws IllegalArgumentException if {@code replicaAckTimeout} is not at least {@link io.github.relock.core.RedisLockClientSettings#REPLICA_ACK_MARGIN}
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

    /** A fencing counter's retention: between 1 s and {@link io.github.relock.core.LockSettings#MAX_LEASE}. */
    public static Duration checkFencingTokenRetention(Duration retention) {
        if (retention == null || retention.compareTo(Duration.ofSeconds(1)) < 0
                || retention.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("fencingTokenRetention must be between 1s and "
                    + MAX_LEASE.toDays() + " days, was " + retention);
        }
        return retention;
    }

    /**
     * Checks a logical name that keys will be appended to.
     *
     * @throws IllegalArgumentException if it is blank or contains {@code ':'}; the message says what to use
     */
    public static String checkLogicalName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a lock name must not be null or blank");
        }
        if (name.indexOf(NAME_SEPARATOR) >= 0) {
            throw new IllegalArgumentException("name '" + name + "' contains '" + NAME_SEPARATOR + "', which separates the "
                    + "name from the key, so two different locks could share one; use another separator, such as "
                    + name.replace(NAME_SEPARATOR, '.'));
        }
        return name;
    }

    /**
     * Checks a complete lock name.
     *
     * @throws IllegalArgumentException if it is blank or longer than {@link io.github.relock.core.LockNames#MAX_LENGTH}; the message says what to do
     */
    public static String checkLockName(String lockName) {
        if (lockName == null || lockName.isBlank()) {
            throw new IllegalArgumentException("lock name must not be null or blank");
        }
        if (lockName.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("lock name must be at most " + MAX_NAME_LENGTH + " characters, was "
                    + lockName.length() + " (starting '" + lockName.substring(0, 40) + "...'); lock on a shorter key, "
                    + "such as an id or a hash of the value");
        }
        return lockName;
    }
}
