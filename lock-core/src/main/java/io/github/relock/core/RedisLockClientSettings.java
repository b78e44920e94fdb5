package io.github.relock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.settings.SettingRules;

/**
 * The settings of a {@link RedisLockClient}, checked when built: each value out of its range is an
 * {@link IllegalArgumentException} naming the setting.
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
    public static final Duration MIN_WATCHDOG_TIMEOUT = SettingRules.MIN_WATCHDOG_TIMEOUT;
    /** Longest watchdog timeout: a crashed holder blocks its lock this long at most. */
    public static final Duration MAX_WATCHDOG_TIMEOUT = SettingRules.MAX_WATCHDOG_TIMEOUT;
    /** Default fencing token retention: a week. */
    public static final Duration DEFAULT_FENCING_TOKEN_RETENTION = Duration.ofDays(7);

    /** @throws IllegalArgumentException naming the setting that is out of range */
    public RedisLockClientSettings {
        SettingRules.checkKeyPrefix(keyPrefix);
        SettingRules.checkWatchdogTimeout(watchdogTimeout);
        if (clientName != null) {
            SettingRules.checkClientName(clientName);
        }
        SettingRules.checkMinReplicas(minReplicas);
        SettingRules.checkReplicaAckTimeout(replicaAckTimeout, watchdogTimeout, minReplicas);
        SettingRules.checkFencingTokenRetention(fencingTokenRetention);
    }

    /**
     * How much shorter than the driver's command timeout a replica acknowledgement timeout must be: Redis ends a
     * timed-out WAIT at its next timer tick (every 100 ms at the default {@code hz 10}), not at the timeout itself.
     */
    public static final Duration REPLICA_ACK_MARGIN = SettingRules.REPLICA_ACK_MARGIN;

    /** The default replica acknowledgement timeout: a tenth of the watchdog timeout, at most 1 s. */
    public static Duration defaultReplicaAckTimeout(Duration watchdogTimeout) {
        Duration tenth = watchdogTimeout.dividedBy(10);
        return tenth.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1)
                : tenth.isZero() ? Duration.ofMillis(1) : tenth;
    }
}
