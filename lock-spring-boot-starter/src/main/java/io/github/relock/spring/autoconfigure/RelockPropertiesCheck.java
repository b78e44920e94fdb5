package io.github.relock.spring.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InitializingBean;

import io.github.relock.core.LockSettings;
import io.github.relock.core.RedisLockClientSettings;
import io.github.relock.core.internal.settings.SettingRules;
import io.github.relock.spring.InvalidLockConfigurationException;

/**
 * Checks {@code relock.*} at startup, before anything uses it. The rules are the core's
 * ({@link RedisLockClientSettings}, {@link LockSettings}); what this adds is the property's name and what to
 * set it to.
 */
public final class RelockPropertiesCheck implements InitializingBean {

    private final RelockProperties properties;

    RelockPropertiesCheck(RelockProperties properties) {
        this.properties = properties;
    }

    @Override
    public void afterPropertiesSet() {
        validate(properties);
    }

    /** @throws InvalidLockConfigurationException naming the property and what to change */
    static void validate(RelockProperties properties) {
        check("relock.key-prefix", "'" + properties.getKeyPrefix() + "'",
                () -> SettingRules.checkKeyPrefix(properties.getKeyPrefix()),
                "it must not be blank, and must not contain braces (the lock name goes in the Redis Cluster hash tag)",
                "Set relock.key-prefix to a short namespace such as lock: or myapp:lock:, or remove it to use lock:.");
        checkWait("relock.wait-time", properties.getWaitTime());
        checkLease("relock.lease-time", properties.getLeaseTime());
        checkMaxHold("relock.max-hold", properties.getMaxHold());
        Duration watchdog = properties.getWatchdogTimeout();
        check("relock.watchdog-timeout", String.valueOf(watchdog), () -> SettingRules.checkWatchdogTimeout(watchdog),
                "it must be between 100ms and 1d: the watchdog renews every third of it, and a crashed holder blocks "
                        + "its locks this long",
                "Set relock.watchdog-timeout to a duration such as 30s, or remove it to use 30s.");
        String clientName = properties.effectiveClientName();
        if (clientName != null) {
            String key = properties.clientNameKey();
            check(key, "'" + clientName + "'", () -> SettingRules.checkClientName(clientName),
                    "it must not be blank or contain ':'",
                    "Set " + key + " to a name without colons, such as the host name, or remove it to use a "
                            + "random UUID.");
        }
        check("relock.min-replicas", String.valueOf(properties.getMinReplicas()),
                () -> SettingRules.checkMinReplicas(properties.getMinReplicas()), "it cannot be negative",
                "Set relock.min-replicas to the number of replicas that must acknowledge each acquisition, or to 0 "
                        + "for none.");
        Duration ackTimeout = properties.getReplicaAckTimeout();
        if (ackTimeout != null) {
            // bounded by the renewal interval whenever it is set, replicas awaited or not yet
            check("relock.replica-ack-timeout", ackTimeout.toString(),
                    () -> SettingRules.checkReplicaAckTimeout(ackTimeout, watchdog, 1),
                    "it must be at least 1ms and shorter than a third of relock.watchdog-timeout (the renewal interval)",
                    "Set relock.replica-ack-timeout to a short duration such as 500ms, or remove it to use a tenth of "
                            + "the watchdog timeout.");
        }
        Duration retention = properties.getFencingTokenRetention();
        check("relock.fencing-token-retention", String.valueOf(retention),
                () -> SettingRules.checkFencingTokenRetention(retention), "it must be between 1s and 365d",
                "Set relock.fencing-token-retention to a duration such as 7d, or remove it to use 7d.");
        properties.getLocks().forEach((name, lock) -> {
            checkWait("relock.locks." + name + ".wait-time", lock.getWaitTime());
            checkLease("relock.locks." + name + ".lease-time", lock.getLeaseTime());
            checkMaxHold("relock.locks." + name + ".max-hold", lock.getMaxHold());
        });
    }

    /**
     * The replica acknowledgement timeout (set, or its default) against the factory's command timeout.
     *
     * @throws InvalidLockConfigurationException naming relock.replica-ack-timeout and the command timeout
     */
    static void checkReplicaAckTimeoutBelow(RelockProperties properties, Duration commandTimeout) {
        Duration ackTimeout = properties.getReplicaAckTimeout() != null ? properties.getReplicaAckTimeout()
                : RedisLockClientSettings.defaultReplicaAckTimeout(properties.getWatchdogTimeout());
        check("relock.replica-ack-timeout", ackTimeout.toString(),
                () -> SettingRules.checkReplicaAckTimeoutBelow(ackTimeout, commandTimeout),
                "it must be at least " + RedisLockClientSettings.REPLICA_ACK_MARGIN.toMillis() + "ms shorter than "
                        + "the Redis command timeout (" + commandTimeout + "): Redis ends a timed-out WAIT at its next "
                        + "timer tick, and the driver would give up on a WAIT that Redis still blocks the connection in",
                "Set relock.replica-ack-timeout to at most " + commandTimeout
                        .minus(RedisLockClientSettings.REPLICA_ACK_MARGIN) + ", or raise spring.data.redis.timeout.");
    }

    private static void checkWait(String property, @Nullable Duration value) {
        if (value != null) {
            check(property, value.toString(), () -> SettingRules.checkWaitTime(value), "a wait time cannot be negative",
                    "Set " + property + " to 0s for a single attempt, or to a positive duration such as 5s.");
        }
    }

    private static void checkLease(String property, @Nullable Duration value) {
        if (value != null) {
            check(property, value.toString(), () -> SettingRules.checkLease("leaseTime", value),
                    "a lease must be between 1ms and 365 days", "Set " + property + " to a positive duration such as "
                            + "10s, or remove it to let the watchdog keep the lock while the method runs.");
        }
    }

    private static void checkMaxHold(String property, @Nullable Duration value) {
        if (value != null) {
            check(property, value.toString(), () -> SettingRules.checkLease("maxHold", value),
                    "a maximum hold time must be between 1ms and 365 days",
                    "Set " + property + " to a positive duration such as 10m, or remove it for no limit.");
        }
    }

    private static void check(String property, String value, Runnable rule, String problem, String action) {
        try {
            rule.run();
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidLockConfigurationException("Invalid value " + value + " for " + property + ": " + problem
                    + ".", action, ex);
        }
    }
}
