package io.github.relock.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.PropertyResolver;
import org.springframework.core.type.AnnotatedTypeMetadata;

import io.github.relock.spring.InvalidLockConfigurationException;

/**
 * Reads {@code relock.enabled} as a boolean: absent or {@code true} locks, {@code false} does not, and any other
 * value ({@code yes}, {@code on}, {@code 1}, {@code "true "}) fails startup instead of being taken for either.
 */
final class LockingEnabled extends SpringBootCondition {

    static final String PROPERTY = "relock.enabled";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        return isEnabled(context.getEnvironment()) ? ConditionOutcome.match(PROPERTY + " is not false")
                : ConditionOutcome.noMatch(PROPERTY + "=false");
    }

    /** @throws InvalidLockConfigurationException if the value is neither true nor false */
    static boolean isEnabled(PropertyResolver properties) {
        String value = properties.getProperty(PROPERTY);
        if (value == null || value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw new InvalidLockConfigurationException("Invalid value '" + value + "' for " + PROPERTY + ": it must be true "
                + "or false. relock does not guess whether a value such as yes, on, 1 or one with spaces around it "
                + "means that @DistributedLock methods should run without their locks.",
                "Set " + PROPERTY + "=true (or remove it) to lock @DistributedLock methods, or " + PROPERTY
                        + "=false to run them without their locks.");
    }
}
