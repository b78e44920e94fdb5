package io.github.relock.spring.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.InvalidLockConfigurationException;
import io.github.relock.spring.LockKeyResolver;
import io.github.relock.spring.LockNotAcquiredException;

/**
 * Turns a {@link DistributedLock @DistributedLock} annotation into a {@link LockDefinition}, checking
 * everything that can be checked before the first call. Runs nothing and touches no Redis.
 */
public final class LockDefinitionFactory {

    /** Longer leases are almost certainly a unit mistake; the core refuses them too. */
    private static final Duration MAX_LEASE = Duration.ofDays(365);

    private final PropertyResolver placeholders;
    private final LockTimingDefaults defaults;
    private final LockKeyResolver keyResolver;

    public LockDefinitionFactory(PropertyResolver placeholders, LockTimingDefaults defaults,
            LockKeyResolver keyResolver) {
        this.placeholders = placeholders;
        this.defaults = defaults;
        this.keyResolver = keyResolver;
    }

    /**
     * Builds the definition of one annotated method.
     *
     * @param beanName    the bean it belongs to, for messages; {@code null} when first seen at call time
     * @param method      the most specific method, on {@code targetClass}
     * @param targetClass the bean's class
     * @throws InvalidLockConfigurationException naming the bean, the method and what to change
     */
    public LockDefinition create(@Nullable String beanName, Method method, Class<?> targetClass,
            DistributedLock annotation) {
        Where where = new Where(beanName, method, targetClass);
        checkProxyable(where);
        String name = annotation.name().isBlank() ? defaultName(method) : annotation.name().strip();
        if (name.indexOf(':') >= 0) {
            // name + ":" + key must split one way only: "acct" + "audit:7" and "acct:audit" + "7" would meet
            throw where.invalid("name '" + name + "' contains ':', which separates the name from the key in the "
                    + "lock's Redis key, so two different locks could share one",
                    "Use another separator in the name, such as " + name.replace(':', '.') + ".", null);
        }
        checkNotSuspending(where);
        List<String> keyExpressions = keyExpressions(annotation, where);
        for (String expression : keyExpressions) {
            try {
                keyResolver.validate(expression, method, targetClass);
            }
            catch (IllegalArgumentException ex) {
                throw where.invalid("key expression '" + expression + "' is not usable: " + ex.getMessage(),
                        "Fix the expression. Arguments are #name (needs the -parameters compiler flag), #p0 or #a0; "
                                + "also available: #root.method, #root.target, #root.args and @beanName.", ex);
            }
        }
        LockTimings configured = defaults.forLock(name);
        Duration waitTime = duration(annotation.waitTime(), "waitTime", where);
        if (waitTime == null) {
            waitTime = configured.waitTime();
        }
        else if (waitTime.isNegative()) {
            throw where.invalid("waitTime '" + annotation.waitTime() + "' is negative",
                    "Use 0s for a single attempt, or a positive duration such as 2s.", null);
        }
        Duration leaseTime = duration(annotation.leaseTime(), "leaseTime", where);
        if (leaseTime == null) {
            leaseTime = configured.leaseTime();
        }
        else if (leaseTime.isNegative() || leaseTime.isZero() || leaseTime.compareTo(MAX_LEASE) > 0) {
            throw where.invalid("leaseTime '" + annotation.leaseTime() + "' is not between 1ms and 365 days",
                    "Use a positive lease such as 10s, or leave leaseTime empty to let the watchdog keep the lock "
                            + "while the method runs.", null);
        }
        boolean completionStage = checkReturnType(where);
        LockFallback fallback = annotation.fallbackMethod().isBlank() ? null : fallback(annotation.fallbackMethod().strip(), where);
        return new LockDefinition(method, name, keyExpressions, waitTime, leaseTime, fallback, completionStage,
                configured.maxHold());
    }

    /**
     * The fully qualified class and the method: two classes of the same simple name in different packages
     * (both {@code OrderService}, say) must not share locks.
     */
    static String defaultName(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }

    /**
     * A Kotlin suspend function returns as soon as it suspends, and its work goes on after the lock would
     * have been released. Its compiled form ends with a {@code kotlin.coroutines.Continuation} parameter.
     */
    private static void checkNotSuspending(Where where) {
        Class<?>[] parameters = where.method.getParameterTypes();
        if (parameters.length > 0
                && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
            throw where.invalid("is a Kotlin suspend function, which @DistributedLock does not support yet: it "
                            + "returns when it first suspends, so the lock would be released while its work goes on",
                    "Make it a regular function that returns a CompletableFuture (for example with future { } from "
                            + "kotlinx-coroutines-jdk8); the lock is then held until it completes.", null);
        }
    }

    /**
     * Fails when Spring's proxy cannot intercept the method, which would otherwise mean it silently runs
     * without the lock.
     *
     * @throws InvalidLockConfigurationException naming the bean, the method and what to change
     */
    public static void checkProxyable(@Nullable String beanName, Method method, Class<?> targetClass) {
        checkProxyable(new Where(beanName, method, targetClass));
    }

    private static void checkProxyable(Where where) {
        Method method = where.method;
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
        else if (Modifier.isFinal(where.targetClass.getModifiers()) && !declaredOnInterface(method, where.targetClass)) {
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

    private static List<String> keyExpressions(DistributedLock annotation, Where where) {
        boolean hasKey = !annotation.key().isBlank();
        if (hasKey && annotation.keys().length > 0) {
            throw where.invalid("both key and keys are set", "Use key for one lock, or keys for several; not both.",
                    null);
        }
        if (hasKey) {
            return List.of(annotation.key().strip());
        }
        List<String> keys = new ArrayList<>();
        for (String key : annotation.keys()) {
            if (key.isBlank()) {
                throw where.invalid("keys contains a blank expression",
                        "Remove the empty entry from keys = {...}.", null);
            }
            keys.add(key.strip());
        }
        return keys;
    }

    private @Nullable Duration duration(String text, String attribute, Where where) {
        if (text.isBlank()) {
            return null;
        }
        String resolved;
        try {
            resolved = placeholders.resolveRequiredPlaceholders(text).strip();
        }
        catch (IllegalArgumentException ex) {
            throw where.invalid(attribute + " '" + text + "' refers to a property that is not set: " + ex.getMessage(),
                    "Set the property, or give the placeholder a default: ${name:2s}.", ex);
        }
        if (resolved.isEmpty()) {
            return null; // a placeholder that resolves to nothing means "as configured"
        }
        try {
            return DurationStyle.detectAndParse(resolved);
        }
        catch (IllegalArgumentException ex) {
            throw where.invalid(attribute + " '" + text + "'" + (resolved.equals(text) ? "" : " (resolved to '" + resolved + "')")
                    + " is not a duration", "Use a duration such as 500ms, 2s, 1m or PT5S.", ex);
        }
    }

    /** Returns whether the lock must be held until a returned {@code CompletionStage} completes. */
    private static boolean checkReturnType(Where where) {
        Class<?> returnType = where.method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(returnType)) {
            if (returnType != CompletableFuture.class && returnType != CompletionStage.class) {
                throw where.invalid("returns " + returnType.getName()
                        + ": the lock is held until the future completes, and the aspect returns a CompletableFuture",
                        "Declare the return type as CompletableFuture or CompletionStage.", null);
            }
            return true;
        }
        if (ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType) != null) {
            throw where.invalid("returns the reactive type " + returnType.getName()
                            + ", which @DistributedLock does not support: the work runs when the result is subscribed to, "
                            + "after the method has returned, so the lock would be released before the work starts",
                    "Return a CompletableFuture (the lock is then held until it completes), or take the lock "
                            + "programmatically with RedisLockClient.newOwner() around the reactive pipeline.", null);
        }
        return false;
    }

    private static LockFallback fallback(String name, Where where) {
        Method method = where.method;
        Class<?>[] parameters = method.getParameterTypes();
        Method withException = null;
        Method plain = null;
        for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(where.targetClass)) {
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
        String signature = Arrays.stream(parameters).map(Class::getSimpleName).reduce((a, b) -> a + ", " + b).orElse("");
        if (fallback == null) {
            throw where.invalid("fallbackMethod '" + name + "' was not found on " + where.targetClass.getName(),
                    "Declare " + name + "(" + signature + ") or " + name + "(" + signature
                            + (signature.isEmpty() ? "" : ", ") + "LockNotAcquiredException) on the same class.", null);
        }
        Class<?> expected = method.getReturnType();
        Class<?> actual = fallback.getReturnType();
        boolean fits = expected == void.class || ClassUtils.isAssignable(expected, actual);
        if (!fits) {
            throw where.invalid("fallbackMethod '" + name + "' returns " + actual.getName() + ", which the method's "
                    + "return type " + expected.getName() + " cannot hold",
                    "Make " + name + " return " + expected.getSimpleName() + " (or a subtype).", null);
        }
        return new LockFallback(fallback, fallback == withException);
    }

    /** Names a method for messages: bean, class and method. */
    private record Where(@Nullable String beanName, Method method, Class<?> targetClass) {

        InvalidLockConfigurationException invalid(String problem, String action, @Nullable Throwable cause) {
            String bean = beanName != null ? "bean '" + beanName + "' (" + targetClass.getName() + ")"
                    : targetClass.getName();
            String description = "@DistributedLock on " + bean + ", method " + method.getName() + "("
                    + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).reduce((a, b) -> a + ", " + b).orElse("")
                    + "): " + problem;
            return new InvalidLockConfigurationException(description, action, cause);
        }
    }
}
