package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.InvalidLockConfigurationException;

/**
 * The {@link LockDefinition}s of annotated methods, built once per (method, bean class) and cached. The
 * startup check fills it; a method first seen at call time is built then.
 */
public final class LockDefinitionRegistry {

    private final LockDefinitionFactory factory;
    private final ConcurrentMap<MethodClassKey, Optional<LockDefinition>> definitions = new ConcurrentHashMap<>();
    private final Set<String> names = ConcurrentHashMap.newKeySet();
    /** The first definition seen per lock name: a name is exclusive everywhere or read-write everywhere. */
    private final ConcurrentMap<String, LockDefinition> firstByName = new ConcurrentHashMap<>();

    public LockDefinitionRegistry(LockDefinitionFactory factory) {
        this.factory = factory;
    }

    /**
     * The definition for a call, or {@code null} if the method carries no {@code @DistributedLock}.
     *
     * @param method      the invoked method, possibly declared on an interface
     * @param targetClass the class of the bean behind the proxy
     */
    public @Nullable LockDefinition get(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        return lookup(null, specific, targetClass).orElse(null);
    }

    /**
     * Builds (or returns) the definition of a method found by the startup check, so that a mistake fails
     * startup with the bean's name in the message.
     */
    public @Nullable LockDefinition register(String beanName, Method method, Class<?> targetClass) {
        return lookup(beanName, AopUtils.getMostSpecificMethod(method, targetClass), targetClass).orElse(null);
    }

    /** Logical lock names of every definition built so far. */
    public Set<String> names() {
        return Collections.unmodifiableSet(names);
    }

    /** Exclusive, fair and read-write locks of one name are different Redis locks: they would not exclude each other. */
    private void checkMode(LockDefinition definition) {
        LockDefinition first = firstByName.putIfAbsent(definition.name(), definition);
        if (first != null && !first.kind().equals(definition.kind())) {
            throw new InvalidLockConfigurationException("Lock name '" + definition.name() + "' is the " + first.kind()
                    + " lock in " + describe(first) + " (mode " + first.mode() + ") and the " + definition.kind()
                    + " lock in " + describe(definition) + " (mode " + definition.mode() + "); locks of different "
                    + "kinds do not exclude each other", "Use the same kind in both methods (READ and WRITE "
                    + "together, or EXCLUSIVE with the same fair setting), or give them different names.");
        }
    }

    private static String describe(LockDefinition definition) {
        return definition.method().getDeclaringClass().getName() + "." + definition.method().getName();
    }

    private Optional<LockDefinition> lookup(@Nullable String beanName, Method specific, Class<?> targetClass) {
        MethodClassKey key = new MethodClassKey(specific, targetClass);
        Optional<LockDefinition> known = definitions.get(key);
        if (known != null) {
            return known;
        }
        // built outside computeIfAbsent: the factory may throw, and that must not poison the map
        DistributedLock annotation = LockAnnotationLookup.find(specific, targetClass);
        Optional<LockDefinition> built = annotation == null ? Optional.empty()
                : Optional.of(factory.create(beanName, specific, targetClass, annotation));
        built.ifPresent(this::checkMode);
        built.ifPresent(definition -> names.add(definition.name()));
        Optional<LockDefinition> raced = definitions.putIfAbsent(key, built);
        return raced != null ? raced : built;
    }
}
