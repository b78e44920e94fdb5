package io.github.relock.spring;

import org.jspecify.annotations.Nullable;

/**
 * A lock key expression evaluated to {@code null} or to a blank string for this call (or
 * could not be evaluated at all), so there is no
 * lock to take. The method was not run. A key is never locked as the string {@code "null"}.
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
