package io.github.relock.core.internal.command;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.internal.settings.SettingRules;


/**
 * Refuses a {@code replicaAckTimeout} that is not shorter than the factory's command timeout. The client would
 * give up on such a WAIT while the server still blocks the connection in it: the acquisition then fails closed,
 * but its give-back queues behind the WAIT, so the lock stays taken, by nobody, until its lease ends.
 */
public final class ReplicaAckTimeoutCheck {

    private ReplicaAckTimeoutCheck() {
    }

    /**
     * Checks Lettuce's own factory (Sentinel and replica set-ups included); a wrapping factory does not tell
     * its timeout and is let through.
     *
     * @throws IllegalArgumentException if the WAIT could outlast the command timeout
     */
    public static void check(RedisConnectionFactory factory, int minReplicas, Duration replicaAckTimeout) {
        if (minReplicas == 0) {
            return;
        }
        Duration commandTimeout = commandTimeout(factory);
        if (commandTimeout != null) {
            SettingRules.checkReplicaAckTimeoutBelow(replicaAckTimeout, commandTimeout);
        }
    }

    /** The command timeout of Lettuce's own factory; null for any other (a wrapper does not tell it). */
    static @Nullable Duration commandTimeout(RedisConnectionFactory factory) {
        return RedisDriverCheck.isLettuceFactory(factory) ? Lettuce.commandTimeout(factory) : null;
    }

    /** Kept apart so that Lettuce's factory class loads only when the factory is one. */
    private static final class Lettuce {

        static @Nullable Duration commandTimeout(RedisConnectionFactory factory) {
            return factory instanceof LettuceConnectionFactory lettuce
                    ? lettuce.getClientConfiguration().getCommandTimeout() : null;
        }
    }
}
