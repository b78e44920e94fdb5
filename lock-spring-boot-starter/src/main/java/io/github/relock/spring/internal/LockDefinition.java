package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.LockSettings;
import io.github.relock.spring.LockKeyExpression;
import io.github.relock.spring.LockMode;

/**
 * What one {@code @DistributedLock} method needs at call time, worked out once at startup: nothing in it
 * is parsed or checked again per call.
 *
 * @param method   the annotated method (the most specific one, on the bean's class)
 * @param name     the logical lock name (no {@code ':'})
 * @param keys     the key expressions, parsed; empty: one lock named {@code name} for the whole method
 * @param settings wait, lease and maximum hold time, from the annotation and {@code relock.*}
 * @param fallback the fallback method, or {@code null}
 * @param holding  how the method's return value is held: until it returns, its future completes, or its
 *                 publisher ends
 * @param mode     exclusive, or a side of a read-write lock
 * @param fair     whether the (exclusive) lock is fair
 */
public record LockDefinition(Method method, String name, List<Key> keys, LockSettings settings,
        @Nullable LockFallback fallback, Holding holding, LockMode mode, boolean fair) {

    /** A key expression: as written, for messages, and parsed. */
    public record Key(String expression, LockKeyExpression parsed) {
    }

    /** How long a call holds its locks, by the method's return type. */
    public enum Holding {
        /** Until the method returns or throws. */
        SYNCHRONOUS,
        /** Until the {@code CompletionStage} the method returned completes. */
        COMPLETION_STAGE,
        /** For each subscription to the {@code Mono} or {@code Flux} returned, until it terminates or is cancelled. */
        REACTIVE
    }

    public LockDefinition {
        keys = List.copyOf(keys);
    }

    /** An exclusive lock's definition. */
    public LockDefinition(Method method, String name, List<Key> keys, LockSettings settings,
            @Nullable LockFallback fallback, Holding holding) {
        this(method, name, keys, settings, fallback, holding, LockMode.EXCLUSIVE, false);
    }

    /** The kind of Redis lock behind the name: locks of different kinds never exclude each other. */
    public String kind() {
        return fair ? "fair" : mode.readWrite() ? "read-write (READ/WRITE)" : "exclusive";
    }

    /** {@code SimpleClassName.method}, for messages. */
    public String describeMethod() {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }
}
