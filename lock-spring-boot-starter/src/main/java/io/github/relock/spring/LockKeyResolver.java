package io.github.relock.spring;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Turns a key expression from {@link DistributedLock @DistributedLock} into the key of one call. The
 * starter's default evaluates SpEL; declare a bean of this type to replace it.
 */
public interface LockKeyResolver {

    /**
     * Checks an expression once, at startup, so that a mistake stops the application instead of a call.
     *
     * @param expression  the expression as written on the annotation
     * @param method      the annotated method
     * @param targetClass the class of the bean it is called on
     * @throws IllegalArgumentException with a message saying what is wrong and how to fix it
     */
    void validate(String expression, Method method, Class<?> targetClass);

    /**
     * Evaluates an expression for one call.
     *
     * @return the key, or {@code null} if it evaluated to nothing
     */
    @Nullable Object resolve(String expression, Method method, @Nullable Object[] arguments, Object target,
            Class<?> targetClass);

    /**
     * Checks an expression and returns it ready to evaluate, once per method at startup. The default checks
     * with {@link #validate} and evaluates with {@link #resolve}; the SpEL resolver keeps the parsed form.
     *
     * @throws IllegalArgumentException with a message saying what is wrong and how to fix it
     */
    default LockKeyExpression parse(String expression, Method method, Class<?> targetClass) {
        validate(expression, method, targetClass);
        return (arguments, target) -> resolve(expression, method, arguments, target, targetClass);
    }
}
