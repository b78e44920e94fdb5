package io.github.relock.spring;

import org.jspecify.annotations.Nullable;

/**
 * A key expression of one {@link DistributedLock @DistributedLock} method, parsed once at startup by the
 * {@link LockKeyResolver}: each call only evaluates it.
 */
@FunctionalInterface
public interface LockKeyExpression {

    /**
     * Evaluates the expression for one call.
     *
     * @return the key, or {@code null} if it evaluated to nothing
     * @throws org.springframework.expression.EvaluationException if it cannot be evaluated for these arguments
     */
    @Nullable Object evaluate(@Nullable Object[] arguments, Object target);
}
