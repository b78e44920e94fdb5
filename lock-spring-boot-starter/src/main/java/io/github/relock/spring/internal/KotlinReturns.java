package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.aop.Advisor;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.MethodMatchers;
import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * Kotlin's two shapes of non-blocking work, known by name so that an application without Kotlin never loads
 * a Kotlin class: a {@code suspend} function, which Spring AOP (given kotlinx-coroutines-reactor) calls as a
 * {@code Mono} and awaits, so the aspect holds it like one; and a {@code Flow}, held like a {@code Flux} and
 * converted back. The owner then travels in the Reactor {@code Context}, which kotlinx-coroutines-reactor
 * carries into the coroutine and out to the nested calls it awaits.
 */
final class KotlinReturns {

    private static final String FLOW = "kotlinx.coroutines.flow.Flow";

    private KotlinReturns() {
    }

    static boolean suspending(Method method) {
        return KotlinDetector.isKotlinPresent() && KotlinDetector.isSuspendingFunction(method);
    }

    static boolean isFlow(Class<?> type) {
        return type.getName().equals(FLOW);
    }

    /** Whether the method is a suspend function or returns a Flow: its work runs in coroutines. */
    static boolean coroutines(Method method) {
        return suspending(method) || isFlow(method.getReturnType());
    }

    /**
     * Whether no advice after relock's applies to the method, so that the aspect may call a suspend function on
     * its target itself (in a coroutine it can wait for) instead of through the rest of the chain.
     */
    static boolean innermost(MethodInvocation invocation, Class<?> targetClass) {
        if (!(invocation instanceof ProxyMethodInvocation proxied) || !(proxied.getProxy() instanceof Advised advised)) {
            return false;
        }
        boolean after = false;
        for (Advisor advisor : advised.getAdvisors()) {
            if (advisor instanceof PointcutAdvisor ours && ours.getPointcut() instanceof DistributedLockPointcut) {
                after = true; // relock's advisor, known by its pointcut: the advisor class is above the aspect's
            }
            else if (after && (!(advisor instanceof PointcutAdvisor pointcut)
                    || pointcut.getPointcut().getClassFilter().matches(targetClass) && MethodMatchers.matches(
                            pointcut.getPointcut().getMethodMatcher(), invocation.getMethod(), targetClass, false))) {
                return false;
            }
        }
        return after;
    }

    /** Whether the method's result reaches the caller as a single value (a Mono, or a suspend function's). */
    static boolean single(Method method) {
        return method.getReturnType().getName().equals("reactor.core.publisher.Mono") || suspending(method);
    }

    /**
     * @throws io.github.relock.spring.InvalidLockConfigurationException if a library that Spring and relock
     *         need to hold {@code what} without blocking is missing, naming each
     */
    static void requireCoroutinesReactor(LockedMethod where, String what) {
        ClassLoader loader = ClassUtils.getDefaultClassLoader(); // the application's, as Spring's own checks
        List<String> missing = new ArrayList<>();
        if (!ClassUtils.isPresent("reactor.core.publisher.Mono", loader)) {
            missing.add("io.projectreactor:reactor-core");
        }
        if (!ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", loader)) {
            missing.add("org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
        }
        if (!ClassUtils.isPresent("kotlin.reflect.full.KClasses", loader)) {
            missing.add("org.jetbrains.kotlin:kotlin-reflect");
        }
        if (!missing.isEmpty()) {
            String libraries = String.join(", ", missing);
            throw where.invalid(what + ": @DistributedLock holds it without blocking, through Reactor, which needs "
                    + libraries + " on the class path", "Add " + libraries + " (Spring needs them too, to proxy "
                    + "suspend functions and Flows).", null);
        }
        if (suspending(where.method()) && isFlow(KotlinSignatures.resultClass(where.method()))) {
            throw where.invalid("is a suspend function that returns a Flow: the lock would end with the call, before "
                    + "the Flow is collected", "Make it a regular fun that returns the Flow (the lock is then held "
                    + "while it is collected), or a suspend fun that returns what it collected.", null);
        }
    }

    /** The locked Flux as what the method returns: a Flow for a Flow method, else the Flux itself. */
    static Object orFlow(Method method, Publisher<?> locked) {
        if (!isFlow(method.getReturnType())) {
            return locked;
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(method.getReturnType());
        if (adapter == null) {
            throw new IllegalStateException("No reactive adapter for " + FLOW + "; kotlinx-coroutines-reactor is missing");
        }
        return adapter.fromPublisher(locked);
    }

    /** {@code result} as a Publisher, when it is one or a type Spring adapts (a Flow); else null. */
    static @Nullable Publisher<Object> asPublisher(Object result) {
        if (result instanceof Publisher<?> publisher) {
            @SuppressWarnings("unchecked")
            Publisher<Object> typed = (Publisher<Object>) publisher;
            return typed;
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(result.getClass());
        if (adapter == null || adapter.isNoValue()) {
            return null;
        }
        @SuppressWarnings("unchecked")
        Publisher<Object> adapted = (Publisher<Object>) adapter.toPublisher(result);
        return adapted;
    }

    /** Calls a suspend fallback as Spring calls a suspend method: its result comes as a Publisher. */
    static Publisher<?> invokeSuspending(Method method, Object target, @Nullable Object[] arguments) {
        return CoroutinesUtils.invokeSuspendingFunction(method, target, arguments);
    }
}
