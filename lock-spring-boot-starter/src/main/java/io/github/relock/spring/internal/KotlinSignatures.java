package io.github.relock.spring.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;

import kotlin.jvm.JvmClassMappingKt;
import kotlin.reflect.KClass;
import kotlin.reflect.KFunction;
import kotlin.reflect.jvm.ReflectJvmMapping;

/**
 * What a suspend function's compiled form hides and kotlin-reflect knows: the type it really returns (the
 * compiled one is {@code Object}), and how to box a value class it returned without suspending. Loaded only
 * for suspend functions.
 */
final class KotlinSignatures {

    /** One entry per annotated suspend function: its value class's box-impl, if it returns one. */
    private static final Map<Method, Optional<Method>> BOXES = new ConcurrentHashMap<>();

    private KotlinSignatures() {
    }

    /** The class a suspend function declares it returns ({@code Object} where Kotlin cannot say). */
    static Class<?> resultClass(Method method) {
        KFunction<?> function = ReflectJvmMapping.getKotlinFunction(method);
        if (function != null && function.getReturnType().getClassifier() instanceof KClass<?> type) {
            return JvmClassMappingKt.getJavaClass(type);
        }
        return Object.class;
    }

    /** {@code result} boxed when the function returns a value class and the value came unboxed. */
    static @Nullable Object boxed(Method method, @Nullable Object result) {
        if (result == null) {
            return null;
        }
        Method box = BOXES.computeIfAbsent(method, KotlinSignatures::boxMethod).orElse(null);
        if (box == null || box.getDeclaringClass().isInstance(result)) {
            return result;
        }
        try {
            return box.invoke(null, result);
        }
        catch (IllegalAccessException | InvocationTargetException ex) {
            throw new IllegalStateException("Could not box the result of " + method + " as its value class", ex);
        }
    }

    private static Optional<Method> boxMethod(Method method) {
        Class<?> type = resultClass(method);
        if (!KotlinDetector.isInlineClass(type)) {
            return Optional.empty();
        }
        for (Method candidate : type.getDeclaredMethods()) {
            if (candidate.getName().equals("box-impl") && Modifier.isStatic(candidate.getModifiers())) {
                candidate.setAccessible(true);
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
