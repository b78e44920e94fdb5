package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.PropertyResolver;

import io.github.relock.core.LockNames;
import io.github.relock.core.LockSettings;
import io.github.relock.core.internal.settings.SettingRules;
import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.InvalidLockConfigurationException;
import io.github.relock.spring.LockKeyResolver;

/**
 * Turns a {@link DistributedLock @DistributedLock} annotation into a {@link LockDefinition}, checking
 * everything that can be checked before the first call. Runs nothing and touches no Redis.
 */
public final class LockDefinitionFactory {

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
        LockedMethod where = new LockedMethod(beanName, method, targetClass);
        LockedMethodChecks.checkProxyable(where);
        String name = annotation.name().isBlank() ? defaultName(where) : annotation.name().strip();
        try {
            SettingRules.checkLogicalName(name);
        }
        catch (IllegalArgumentException ex) {
            throw where.invalid(ex.getMessage(), "Use another separator in the name, such as "
                    + name.replace(LockNames.SEPARATOR, '.') + ".", null);
        }
        LockDefinition.Holding holding = LockedMethodChecks.holding(where);
        List<LockDefinition.Key> keys = keys(annotation, where);
        LockSettings settings = settings(annotation, defaults.forLock(name), where);
        LockFallback fallback = annotation.fallbackMethod().isBlank() ? null
                : LockFallback.find(annotation.fallbackMethod().strip(), where);
        if (annotation.mode().readWrite() && keys.size() > 1) {
            throw where.invalid("mode " + annotation.mode() + " is given with " + keys.size() + " keys",
                    "Use one key with a read-write mode, or mode EXCLUSIVE (the default) for several keys.", null);
        }
        if (holding == LockDefinition.Holding.REACTIVE && keys.size() > 1) {
            throw where.invalid("returns " + method.getReturnType().getSimpleName() + " with " + keys.size()
                    + " keys: a multi-lock has no non-blocking calls yet, and a reactive method must not block",
                    "Use one key on a reactive method, or lock the keys one by one in nested @DistributedLock "
                            + "methods (always in the same order).", null);
        }
        boolean fair = annotation.fair() || defaults.fair(name);
        if (fair && (annotation.mode().readWrite() || keys.size() > 1)) {
            throw where.invalid("a fair lock is asked for with " + (keys.size() > 1 ? keys.size() + " keys"
                    : "mode " + annotation.mode()), "Fair locks are exclusive locks on one key: remove fair = true "
                    + "(or relock.locks." + name + ".fair), or use mode EXCLUSIVE with one key.", null);
        }
        return new LockDefinition(method, name, keys, settings, fallback, holding, annotation.mode(), fair);
    }

    /**
     * The fully qualified class and the method: two classes of the same simple name in different packages
     * (both {@code OrderService}, say) must not share locks.
     */
    static String defaultName(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }

    /**
     * {@link #defaultName(Method)}, refused for a hidden or synthetic class (a lambda bean, a generated class): its
     * name holds an address or a counter that differs in every JVM, so no two JVMs would share the lock.
     */
    private static String defaultName(LockedMethod where) {
        Class<?> declaring = where.method().getDeclaringClass();
        if (declaring.isHidden() || declaring.isSynthetic()) {
            Class<?>[] interfaces = where.targetClass().getInterfaces();
            String suggestion = (interfaces.length > 0 ? interfaces[0].getName() : "orders") + "."
                    + where.method().getName();
            throw where.invalid("the annotation gives no name, and the default one would come from the "
                            + (declaring.isHidden() ? "hidden" : "synthetic") + " class " + declaring.getName()
                            + " (a lambda or a generated class), whose name differs in every JVM: no two JVMs would "
                            + "share the lock", "Set name = \"" + suggestion + "\" (or another name that every "
                            + "instance uses) on @DistributedLock.", null);
        }
        return defaultName(where.method());
    }

    /**
     * Fails when Spring's proxy cannot intercept the method, which would otherwise mean it silently runs
     * without the lock.
     *
     * @throws InvalidLockConfigurationException naming the bean, the method and what to change
     */
    public static void checkProxyable(@Nullable String beanName, Method method, Class<?> targetClass) {
        LockedMethodChecks.checkProxyable(new LockedMethod(beanName, method, targetClass));
    }

    private List<LockDefinition.Key> keys(DistributedLock annotation, LockedMethod where) {
        List<LockDefinition.Key> keys = new ArrayList<>();
        for (String expression : keyExpressions(annotation, where)) {
            try {
                keys.add(new LockDefinition.Key(expression,
                        keyResolver.parse(expression, where.method(), where.targetClass())));
            }
            catch (IllegalArgumentException ex) {
                throw where.invalid("key expression '" + expression + "' is not usable: " + ex.getMessage(),
                        "Fix the expression. Arguments are #name (needs the -parameters compiler flag), #p0 or #a0; "
                                + "also available: #root.method, #root.target, #root.args and @beanName.", ex);
            }
        }
        return keys;
    }

    private static List<String> keyExpressions(DistributedLock annotation, LockedMethod where) {
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
                throw where.invalid("keys contains a blank expression", "Remove the empty entry from keys = {...}.",
                        null);
            }
            keys.add(key.strip());
        }
        return keys;
    }

    /** The annotation's durations where given, the configured ones otherwise; checked by {@link LockSettings}. */
    private LockSettings settings(DistributedLock annotation, LockSettings configured, LockedMethod where) {
        Duration waitTime = duration(annotation.waitTime(), "waitTime", where);
        if (waitTime != null && waitTime.isNegative()) {
            throw where.invalid("waitTime '" + annotation.waitTime() + "' is negative",
                    "Use 0s for a single attempt, or a positive duration such as 2s.", null);
        }
        Duration maxHold = duration(annotation.maxHold(), "maxHold", where);
        if (maxHold != null && (maxHold.compareTo(Duration.ofMillis(1)) < 0
                || maxHold.compareTo(LockSettings.MAX_LEASE) > 0)) {
            throw where.invalid("maxHold '" + annotation.maxHold() + "' is not between 1ms and 365 days",
                    "Use a positive duration such as 30s, or leave maxHold empty to use relock.locks.<name>.max-hold "
                            + "or relock.max-hold.", null);
        }
        Duration leaseTime = duration(annotation.leaseTime(), "leaseTime", where);
        try {
            return new LockSettings(waitTime != null ? waitTime : configured.waitTime(),
                    leaseTime != null ? leaseTime : configured.leaseTime(),
                    maxHold != null ? maxHold : configured.maxHold());
        }
        catch (IllegalArgumentException ex) {
            throw where.invalid("leaseTime '" + annotation.leaseTime() + "' is not between 1ms and 365 days",
                    "Use a positive lease such as 10s, or leave leaseTime empty to let the watchdog keep the lock "
                            + "while the method runs.", ex);
        }
    }

    private @Nullable Duration duration(String text, String attribute, LockedMethod where) {
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
            throw where.invalid(attribute + " '" + text + "'" + (resolved.equals(text) ? "" : " (resolved to '"
                    + resolved + "')") + " is not a duration", "Use a duration such as 500ms, 2s, 1m or PT5S.", ex);
        }
    }
}
