package io.github.relock.spring.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What one {@code @DistributedLock} method needs at call time, worked out once at startup: nothing in
 * it is parsed again per call.
 *
 * @param method          the annotated method (the most specific one, on the bean's class)
 * @param name            the logical lock name
 * @param keyExpressions  the key expressions; empty: one lock named {@code name} for the whole method
 * @param waitTime        how long a call waits for its locks
 * @param leaseTime       a fixed lease, or {@code null} for the watchdog
 * @param fallback        the fallback method, or {@code null}
 * @param completionStage whether the method returns a {@code CompletionStage}, so the lock is held until it completes
 * @param maxHold         how long a call may hold its locks at most, or {@code null} for no limit
 */
public record LockDefinition(Method method, String name, List<String> keyExpressions, Duration waitTime,
        @Nullable Duration leaseTime, @Nullable LockFallback fallback, boolean completionStage,
        @Nullable Duration maxHold) {

    public LockDefinition {
        keyExpressions = List.copyOf(keyExpressions);
    }

    /** {@code SimpleClassName.method}, for messages. */
    public String describeMethod() {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }
}
