package io.github.relock.spring.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.relock.spring.LockNotAcquiredException;

/**
 * The method a {@code @DistributedLock} call runs instead when its lock was not acquired.
 *
 * <p>A fallback with a {@code @DistributedLock} of its own is called through the bean's proxy, so that its own
 * lock applies; any other is called on the bean itself, as a method of the same class would call it.
 *
 * @param method         the fallback, on the same bean
 * @param takesException whether it takes the {@link LockNotAcquiredException} as its last parameter
 * @param locked         whether it has a {@code @DistributedLock} of its own
 */
public record LockFallback(Method method, boolean takesException, boolean locked) {

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
        int at = exceptionIndex(where.method(), parameters.length);
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
            else if (types.length == parameters.length + 1 && types[at].isAssignableFrom(LockNotAcquiredException.class)
                    && Arrays.equals(withoutIndex(types, at), parameters)) {
                withException = candidate;
            }
        }
        Method fallback = withException != null ? withException : plain;
        String signature = String.join(", ", Arrays.stream(parameters).map(Class::getSimpleName).toList());
        if (fallback == null && at < parameters.length) { // a suspend function: say it in Kotlin's terms
            String kotlin = String.join(", ", Arrays.stream(parameters, 0, at).map(Class::getSimpleName).toList());
            throw where.invalid("fallbackMethod '" + name + "' was not found on " + where.targetClass().getName(),
                    "Declare suspend fun " + name + "(" + kotlin + ") or suspend fun " + name + "(" + kotlin
                            + (kotlin.isEmpty() ? "" : ", ") + "LockNotAcquiredException) on the same class.", null);
        }
        if (fallback == null) {
            throw where.invalid("fallbackMethod '" + name + "' was not found on " + where.targetClass().getName(),
                    "Declare " + name + "(" + signature + ") or " + name + "(" + signature
                            + (signature.isEmpty() ? "" : ", ") + "LockNotAcquiredException) on the same class.", null);
        }
        boolean suspending = at < parameters.length; // compiled, both return Object: ask Kotlin what they return
        Class<?> expected = suspending ? KotlinSignatures.resultClass(where.method()) : where.method().getReturnType();
        Class<?> actual = suspending ? KotlinSignatures.resultClass(fallback) : fallback.getReturnType();
        if (expected != void.class && !ClassUtils.isAssignable(expected, actual)) {
            throw where.invalid("fallbackMethod '" + name + "' returns " + actual.getName() + ", which the method's "
                    + "return type " + expected.getName() + " cannot hold",
                    "Make " + name + " return " + expected.getSimpleName() + " (or a subtype).", null);
        }
        return new LockFallback(fallback, fallback == withException,
                LockAnnotationLookup.find(fallback, where.targetClass()) != null);
    }

    /**
     * Calls the fallback with the original arguments: through {@code proxy} if it is {@linkplain #locked() locked},
     * else on {@code target}.
     *
     * @param proxy the proxy the call came through, or {@code null} if unknown (then the target is called)
     */
    public @Nullable Object invoke(@Nullable Object proxy, Object target, @Nullable Object[] arguments,
            LockNotAcquiredException exception) throws Throwable {
        Object[] fallbackArguments = arguments;
        if (takesException) {
            int at = exceptionIndex(method, arguments.length);
            fallbackArguments = new Object[arguments.length + 1];
            System.arraycopy(arguments, 0, fallbackArguments, 0, at);
            fallbackArguments[at] = exception;
            System.arraycopy(arguments, at, fallbackArguments, at + 1, arguments.length - at);
        }
        Object receiver = locked && proxy != null ? proxy : target;
        Method invoked = receiver == target ? method : AopUtils.selectInvocableMethod(method, receiver.getClass());
        if (KotlinReturns.suspending(invoked)) {
            return KotlinReturns.invokeSuspending(invoked, receiver, fallbackArguments); // a Publisher, as Spring's
        }
        try {
            return invoked.invoke(receiver, fallbackArguments);
        }
        catch (InvocationTargetException ex) {
            throw ex.getTargetException();
        }
    }

    /** Where the exception goes after {@code count} parameters: at the end, or before a suspend function's Continuation. */
    private static int exceptionIndex(Method method, int count) {
        return KotlinReturns.suspending(method) ? count - 1 : count;
    }

    private static Class<?>[] withoutIndex(Class<?>[] types, int index) {
        Class<?>[] rest = new Class<?>[types.length - 1];
        System.arraycopy(types, 0, rest, 0, index);
        System.arraycopy(types, index + 1, rest, index, types.length - index - 1);
        return rest;
    }
}
