package io.github.relock.spring;

import org.jspecify.annotations.Nullable;

/**
 * A lock key expression gave no usable key for this call, so there is no lock to take: it could not be
 * evaluated, it evaluated to {@code null} or a blank string, to an object whose {@code toString()} is
 * Object's identity ({@code Order@75504cef}, a different lock per instance) or to an array, or the lock
 * name came out longer than {@link io.github.relock.core.RedisLockClient#MAX_NAME_LENGTH}. The method was
 * not run. A key is never locked as the string {@code "null"}, nor as an identity.
 */
public class InvalidLockKeyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String expression;

    public InvalidLockKeyException(String expression, String message) {
        this(expression, message, null);
    }

    public InvalidLockKeyException(String expression, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.expression = expression;
    }

    /** The SpEL expression that produced no usable key. */
    public String getExpression() {
        return expression;
    }
}
