package io.github.relock.spring.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.relock.spring.LockNotAcquiredException;

/**
 * The method a {@code @DistributedLock} call runs instead when its lock was not acquired.
 *
 * @param method         the fallback, on the same bean
 * @param takesException whether it takes the {@link LockNotAcquiredException} as its last parameter
 */
public record LockFallback(Method method, boolean takesException) {

    public LockFallback {
        ReflectionUtils.makeAccessible(method);
    }

    /**
     * Finds {@code name(parameters)} or {@code name(parameters, LockNotAcquiredException)} next to the annotated
     * method, preferring the second, with a return type the method's can hold.
     *
     * @throws io.github.relock.spring.InvalidLockConfigurationException if there is none, saying what to declare
     */
    static LockFallback find(String name, LockedMethod where) {
        Class<?>[] parameters = where.method().getParameterTypes();
        Method withException = null;
        Method plain = null;
        for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(where.targetClass())) {
            if (!candidate.getName().equals(name) || candidate.isBridge()) {
                continue;
            }
            Class<?>[] types = candidate.getParameterTypes();
            if (Arrays.equals(types, parameters)) {
                plain = candidate;
            }
            else if (types.length == parameters.length + 1
                    && Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
                    && types[parameters.length].isAssignableFrom(LockNotAcquiredException.class)) {
                withException = candidate;
            }
        }
        Method fallback = withException != null ? withException : plain;
        String signature = String.join(", ", Arrays.stream(parameters).map(Class::getSimpleName).toList());
        if (fallback == null) {
            throw where.invalid("fallbackMethod '" + name + "' was not found on " + where.targetClass().getName(),
                    "Declare " + name + "(" + signature + ") or " + name + "(" + signature
                            + (signature.isEmpty() ? "" : ", ") + "LockNotAcquiredException) on the same class.", null);
        }
        Class<?> expected = where.method().getReturnType();
        Class<?> actual = fallback.getReturnType();
        if (expected != void.class && !ClassUtils.isAssignable(expected, actual)) {
            throw where.invalid("fallbackMethod '" + name + "' returns " + actual.getName() + ", which the method's "
                    + "return type " + expected.getName() + " cannot hold",
                    "Make " + name + " return " + expected.getSimpleName() + " (or a subtype).", null);
        }
        return new LockFallback(fallback, fallback == withException);
    }

    /** Calls the fallback on the target object (not its proxy) with the original arguments. */
    public @Nullable Object invoke(Object target, @Nullable Object[] arguments, LockNotAcquiredException exception)
            throws Throwable {
        Object[] fallbackArguments = arguments;
        if (takesException) {
            fallbackArguments = Arrays.copyOf(arguments, arguments.length + 1);
            fallbackArguments[arguments.length] = exception;
        }
        try {
            return method.invoke(target, fallbackArguments);
        }
        catch (InvocationTargetException ex) {
            throw ex.getTargetException();
        }
    }
}
