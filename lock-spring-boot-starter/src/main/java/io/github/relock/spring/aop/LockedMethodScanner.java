package io.github.relock.spring.aop;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

import io.github.relock.spring.DistributedLock;
import io.github.relock.spring.InvalidLockConfigurationException;

/**
 * Checks every {@code @DistributedLock} method of every bean once the singletons exist, so that a
 * malformed key, a bad duration or an unproxyable method stops startup instead of failing (or silently
 * not locking) on the first call; reports (or fails on) calls a bean class makes to its own annotated methods,
 * which skip the proxy ({@link SelfInvocationDetector}). Then warns about {@code relock.locks.<name>} entries
 * that no annotated method uses, which are most likely typos.
 */
public final class LockedMethodScanner implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(LockedMethodScanner.class);

    private final ConfigurableListableBeanFactory beanFactory;
    private final LockDefinitionRegistry definitions;
    private final Collection<String> configuredNames;
    private final SelfInvocationReaction selfInvocation;
    private final Set<Class<?>> readForSelfCalls = new HashSet<>();

    /**
     * @param configuredNames the names under {@code relock.locks}, to warn about the unused ones
     */
    public LockedMethodScanner(ConfigurableListableBeanFactory beanFactory, LockDefinitionRegistry definitions,
            Collection<String> configuredNames) {
        this(beanFactory, definitions, configuredNames, SelfInvocationReaction.WARN);
    }

    /**
     * @param configuredNames the names under {@code relock.locks}, to warn about the unused ones
     * @param selfInvocation  what to do about a bean class that calls its own annotated methods
     */
    public LockedMethodScanner(ConfigurableListableBeanFactory beanFactory, LockDefinitionRegistry definitions,
            Collection<String> configuredNames, SelfInvocationReaction selfInvocation) {
        this.beanFactory = beanFactory;
        this.definitions = definitions;
        this.configuredNames = configuredNames;
        this.selfInvocation = selfInvocation;
    }

    @Override
    public void afterSingletonsInstantiated() {
        for (String beanName : beanFactory.getBeanDefinitionNames()) {
            if (ScopedProxyUtils.isScopedTarget(beanName)) {
                continue; // checked through its scoped proxy's bean name
            }
            Class<?> type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
            if (type != null) {
                scan(beanName, ClassUtils.getUserClass(type));
            }
        }
        warnAboutUnusedNames();
    }

    private void scan(String beanName, Class<?> type) {
        if (!AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
            return;
        }
        Map<Method, DistributedLock> annotated = LockAnnotationLookup.annotatedMethods(type);
        for (Method method : annotated.keySet()) {
            LockDefinition definition = definitions.register(beanName, method, type);
            if (definition != null) {
                checkFallbackReachable(beanName, definition, type);
            }
        }
        if (selfInvocation != SelfInvocationReaction.IGNORE && !annotated.isEmpty() && readForSelfCalls.add(type)) {
            reportSelfCalls(beanName, type, SelfInvocationDetector.find(type, annotated.keySet()));
        }
    }

    private void reportSelfCalls(String beanName, Class<?> type, List<SelfInvocationDetector.SelfCall> calls) {
        if (calls.isEmpty()) {
            return;
        }
        String what = "Do that call through the bean's proxy (inject the bean into itself, e.g. @Lazy @Autowired "
                + type.getSimpleName() + " self; then self.method(...)), or move the locked method to another bean.";
        if (selfInvocation == SelfInvocationReaction.FAIL) {
            String found = String.join("; ", calls.stream().map(call -> call.caller() + " calls "
                    + call.calleeSignature() + " on the same object, so " + call.calleeSignature()
                    + " runs without its lock there").toList());
            throw new InvalidLockConfigurationException("@DistributedLock on bean '" + beanName + "' (" + type.getName()
                    + "): " + found + " (the call does not go through the bean's proxy)", what
                    + " Or set relock.self-invocation=warn to start anyway with a warning.");
        }
        for (SelfInvocationDetector.SelfCall call : calls) {
            log.warn("{} calls {} on the same object (bean '{}'): the call does not go through the bean's proxy, so "
                    + "{} runs without its lock there. {} (relock.self-invocation=fail makes this a startup failure, "
                    + "=ignore silences it.)", call.caller(), call.calleeSignature(), beanName, call.calleeSignature(),
                    what);
        }
    }

    /** A fallback with a lock of its own runs through the proxy: an interface proxy must expose it. */
    private void checkFallbackReachable(String beanName, LockDefinition definition, Class<?> type) {
        LockFallback fallback = definition.fallback();
        if (fallback == null || !fallback.locked()) {
            return;
        }
        Object bean = beanFactory.getSingleton(beanName);
        if (bean == null || !AopUtils.isAopProxy(bean)) {
            return; // not created yet (lazy, or not a singleton), or not advised at all: nothing to check here
        }
        try {
            AopUtils.selectInvocableMethod(fallback.method(), bean.getClass());
        }
        catch (IllegalStateException ex) {
            throw new LockedMethod(beanName, definition.method(), type).invalid("fallbackMethod '"
                    + fallback.method().getName() + "' has a @DistributedLock of its own, so it runs through the "
                    + "bean's proxy, but the bean's interface-based proxy does not expose it: it could only run "
                    + "without its lock", "Declare " + fallback.method().getName() + " on an interface the bean "
                    + "implements, or let Spring proxy the class (spring.aop.proxy-target-class=true, the default).",
                    ex);
        }
    }

    private void warnAboutUnusedNames() {
        Set<String> unused = new TreeSet<>(configuredNames);
        unused.removeAll(definitions.names());
        for (String name : unused) {
            log.warn("relock.locks.{} is configured, but no @DistributedLock method uses the lock name '{}'; is it a "
                    + "typo? Names in use: {}", name, name, new TreeSet<>(definitions.names()));
        }
    }
}
