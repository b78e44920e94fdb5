package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Enumeration;
import java.util.Iterator;
import java.util.Spliterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What makes an annotated method unlockable, found at startup: a proxy that cannot intercept it (it would
 * silently run unlocked), or a return type whose work outlives the call in a way the aspect cannot follow
 * (the lock would be released before the work starts), or a lazy stream or iterator (its elements would be
 * produced after the release).
 */
final class LockedMethodChecks {

    private LockedMethodChecks() {
    }

    /**
     * Fails when Spring's proxy cannot intercept the method.
     *
     * @throws io.github.relock.spring.InvalidLockConfigurationException naming the bean, the method and what to change
     */
    static void checkProxyable(LockedMethod where) {
        Method method = where.method();
        int modifiers = method.getModifiers();
        String problem = null;
        if (Modifier.isStatic(modifiers)) {
            problem = "is static: calls to it never go through the bean's proxy";
        }
        else if (Modifier.isPrivate(modifiers)) {
            problem = "is private: a proxy cannot intercept it, so the lock would silently never be taken";
        }
        else if (Modifier.isFinal(modifiers)) {
            problem = "is final: a class-based proxy cannot override it, so the lock would silently never be taken";
        }
        else if (Modifier.isFinal(where.targetClass().getModifiers()) && !declaredOnInterface(method, where.targetClass())) {
            problem = "belongs to a final class: a class-based proxy cannot subclass it";
        }
        if (problem != null) {
            throw where.invalid("the method " + problem,
                    "Make the method public (or protected) and not final or static, in a class that is not final, "
                            + "and call it through the bean, not from inside the same class.", null);
        }
    }

    private static boolean declaredOnInterface(Method method, Class<?> targetClass) {
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(targetClass)) {
            if (ReflectionUtils.findMethod(type, method.getName(), method.getParameterTypes()) != null) {
                return true;
            }
        }
        return false;
    }

    /** How the method's return value is held; refuses the kinds whose work would run after the release. */
    static LockDefinition.Holding holding(LockedMethod where) {
        if (KotlinReturns.suspending(where.method())) {
            KotlinReturns.requireCoroutinesReactor(where, "is a Kotlin suspend function");
            return LockDefinition.Holding.REACTIVE; // Spring AOP hands it to the aspect as a Mono
        }
        checkNoContinuation(where);
        Class<?> returnType = where.method().getReturnType();
        checkNotLazy(where, returnType);
        if (CompletionStage.class.isAssignableFrom(returnType)) {
            if (returnType != CompletableFuture.class && returnType != CompletionStage.class) {
                throw where.invalid("returns " + returnType.getName()
                        + ": the lock is held until the future completes, and the aspect returns a CompletableFuture",
                        "Declare the return type as CompletableFuture or CompletionStage.", null);
            }
            return LockDefinition.Holding.COMPLETION_STAGE;
        }
        if (Future.class.isAssignableFrom(returnType)) {
            throw where.invalid("returns " + returnType.getName() + ": its work may go on after the method returned, "
                            + "and a Future cannot be followed without blocking a thread, so the lock would be released "
                            + "before the work ends",
                    "Declare the return type as CompletableFuture or CompletionStage (the lock is then held until it "
                            + "completes), or return the work's result instead of a Future.", null);
        }
        if (returnType.getName().equals("reactor.core.publisher.Mono")
                || returnType.getName().equals("reactor.core.publisher.Flux")) { // by name: Reactor is optional
            return LockDefinition.Holding.REACTIVE;
        }
        if (KotlinReturns.isFlow(returnType)) {
            KotlinReturns.requireCoroutinesReactor(where, "returns a Kotlin Flow");
            return LockDefinition.Holding.REACTIVE;
        }
        if (reactive(returnType)) {
            throw where.invalid("returns the reactive type " + returnType.getName()
                            + ", which @DistributedLock does not support: the work runs when the result is subscribed to, "
                            + "after the method has returned, so the lock would be released before the work starts",
                    "Declare the return type as Reactor's Mono or Flux (the lock is then held for each subscription), "
                            + "return a CompletableFuture (held until it completes), or take the lock programmatically "
                            + "with DistributedLockClient.newOwner() around the reactive pipeline.", null);
        }
        return LockDefinition.Holding.SYNCHRONOUS;
    }

    /**
     * A stream or an iterator produces its elements as the caller consumes them, after the method returned and
     * its lock was released: the work would run unlocked.
     */
    private static void checkNotLazy(LockedMethod where, Class<?> returnType) {
        if (lazy(returnType)) {
            throw where.invalid("returns " + returnType.getName() + ", which is lazy: its elements are produced as "
                            + "the caller consumes them, after the lock was released, so that work would run unlocked",
                    "Collect the result inside the method (return a List, a Set or an array, such as "
                            + "stream.toList()), so that the work runs while the lock is held.", null);
        }
    }

    /**
     * What is wrong with the value a synchronously held method returned, whose declared type (say, Object, or a
     * generic {@code T}) did not show that its work outlives the call: a lazy stream or iterator, a publisher not
     * yet subscribed to, or a future not yet done. Its
     * lock was held while the method ran only, so that work would run (or go on) without it. Null if the value
     * is plain.
     */
    static @Nullable String unfinishedWork(Method method, @Nullable Object result) {
        if (result == null || Modifier.isFinal(method.getReturnType().getModifiers())) {
            return null; // declared String, int, a record...: no adapter lookup per call
        }
        if (lazy(result.getClass())) {
            return "a " + result.getClass().getName() + ", which is lazy: its elements are produced as the caller "
                    + "consumes them (collect it inside the method, such as stream.toList())";
        }
        if (result instanceof CompletionStage<?> stage) {
            return isDone(stage) ? null : "a CompletionStage that has not completed yet";
        }
        if (result instanceof Future<?> future) {
            return future.isDone() ? null : "a Future that is not done yet";
        }
        return reactive(result.getClass()) ? "a " + result.getClass().getName() + ", whose work runs when it is "
                + "subscribed to" : null;
    }

    /** A stream, an iterator, a spliterator or an enumeration: produces its elements as it is consumed. */
    private static boolean lazy(Class<?> type) {
        return BaseStream.class.isAssignableFrom(type) || Iterator.class.isAssignableFrom(type)
                || Spliterator.class.isAssignableFrom(type) || Enumeration.class.isAssignableFrom(type);
    }

    private static boolean isDone(CompletionStage<?> stage) {
        try {
            return stage.toCompletableFuture().isDone();
        }
        catch (UnsupportedOperationException ex) {
            return false;
        }
    }

    private static boolean reactive(Class<?> returnType) {
        return ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType) != null;
    }

    /**
     * A method that takes a {@code kotlin.coroutines.Continuation} last but that Kotlin did not compile as a
     * suspend function (Java, or without Kotlin's metadata) would return when it first suspends, and its work
     * would go on after the lock was released.
     */
    private static void checkNoContinuation(LockedMethod where) {
        Class<?>[] parameters = where.method().getParameterTypes();
        @Nullable Class<?> last = parameters.length > 0 ? parameters[parameters.length - 1] : null;
        if (last != null && last.getName().equals("kotlin.coroutines.Continuation")) {
            throw where.invalid("takes a kotlin.coroutines.Continuation last, like a suspend function, but is not a "
                            + "Kotlin suspend function that Spring can call as one: it would return when it first "
                            + "suspends, so the lock would be released while its work goes on",
                    "Declare it as a suspend fun in Kotlin (with kotlin-reflect and kotlinx-coroutines-reactor on the "
                            + "class path), or make it return a CompletableFuture; the lock is then held until it "
                            + "completes.", null);
        }
    }
}
