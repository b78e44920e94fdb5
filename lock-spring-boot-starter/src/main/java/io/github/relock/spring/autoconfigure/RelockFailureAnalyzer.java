package io.github.relock.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

import io.github.relock.core.UnsupportedRedisDriverException;
import io.github.relock.spring.InvalidLockConfigurationException;

/**
 * Prints what is wrong with a {@code relock.*} property, a {@code @DistributedLock} annotation or the Redis
 * driver (relock needs Lettuce), and what to change, instead of a stack trace.
 */
public final class RelockFailureAnalyzer implements FailureAnalyzer {

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        InvalidLockConfigurationException invalid = findCause(failure, InvalidLockConfigurationException.class);
        if (invalid != null) {
            return new FailureAnalysis(invalid.getDescription(), invalid.getAction(), invalid);
        }
        UnsupportedRedisDriverException driver = findCause(failure, UnsupportedRedisDriverException.class);
        return driver == null ? null : new FailureAnalysis(driver.getMessage(), driverAction(driver), driver);
    }

    private static String driverAction(UnsupportedRedisDriverException driver) {
        String lettuce = driver.isLettucePresent() ? "" : " Add io.lettuce:lettuce-core (spring-boot-starter-data-redis "
                + "brings it) if you excluded it.";
        return "Switch Spring Data Redis to Lettuce: set spring.data.redis.client-type=lettuce, or remove "
                + "redis.clients:jedis from the dependencies (exclude it where it comes in transitively)." + lettuce
                + " A RedisConnectionFactory bean of your own must be a LettuceConnectionFactory.";
    }

    private static <T extends Throwable> @Nullable T findCause(Throwable failure, Class<T> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }
}
