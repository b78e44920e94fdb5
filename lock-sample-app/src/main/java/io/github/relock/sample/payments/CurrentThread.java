package io.github.relock.sample.payments;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Whether the calling thread is a virtual one ({@code spring.threads.virtual.enabled} on JDK 21+). Asked by
 * reflection because the sample compiles for Java 17, which has no {@code Thread.isVirtual()}.
 */
final class CurrentThread {

    private static final @Nullable Method IS_VIRTUAL = isVirtualMethod();

    private CurrentThread() {
    }

    static boolean isVirtual() {
        if (IS_VIRTUAL == null) {
            return false; // JDK 17 to 20: no virtual threads at all
        }
        try {
            return (Boolean) IS_VIRTUAL.invoke(Thread.currentThread());
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("Thread.isVirtual() exists but could not be called", ex);
        }
    }

    private static @Nullable Method isVirtualMethod() {
        try {
            return Thread.class.getMethod("isVirtual");
        }
        catch (NoSuchMethodException ex) {
            return null;
        }
    }
}
