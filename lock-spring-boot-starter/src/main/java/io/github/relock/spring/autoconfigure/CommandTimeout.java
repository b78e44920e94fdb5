package io.github.relock.spring.autoconfigure;

import java.time.Duration;
import java.util.Optional;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/** The command timeout of the application's Lettuce factory, which bounds how long relock may WAIT for replicas. */
final class CommandTimeout {

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
            CommandTimeout.class.getClassLoader());

    private CommandTimeout() {
    }

    /** Empty for any factory but Lettuce's own: a wrapper or another driver does not tell it. */
    static Optional<Duration> of(RedisConnectionFactory factory) {
        return LETTUCE_PRESENT ? Lettuce.of(factory) : Optional.empty();
    }

    /** Kept apart so that Lettuce's factory class loads only when Lettuce is there. */
    private static final class Lettuce {

        static Optional<Duration> of(RedisConnectionFactory factory) {
            return factory instanceof LettuceConnectionFactory lettuce
                    ? Optional.of(lettuce.getClientConfiguration().getCommandTimeout()) : Optional.empty();
        }
    }
}
