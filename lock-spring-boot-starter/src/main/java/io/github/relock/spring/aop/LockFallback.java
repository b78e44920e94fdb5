package io.github.relock.spring.aop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;
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
