package io.github.relock.spring;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Decides what a {@link DistributedLock @DistributedLock} call does when its lock was not acquired in
 * time, for every annotated method without a {@link DistributedLock#fallbackMethod() fallbackMethod}.
 * Declare one as a bean to map the failure globally, for example to an HTTP 409 exception. Without
 * such a bean the call throws the {@link LockNotAcquiredException}.
 */
@FunctionalInterface
public interface LockFailureHandler {

    /**
     * Called instead of the annotated method. What it returns is returned by the method (it must fit
     * the method's return type); what it throws is thrown to the caller.
     *
     * @param method    the annotated method
     * @param arguments the call's arguments
     * @param exception what was not acquired, and how long the call waited
     */
    @Nullable Object lockNotAcquired(Method method, @Nullable Object[] arguments, LockNotAcquiredException exception)
            throws Throwable;
}
