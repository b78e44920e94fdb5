package io.github.relock.spring.aop;

import java.lang.reflect.Method;
import java.util.Collection;
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

/**
 * Checks every {@code @DistributedLock} method of every bean once the singletons exist, so that a
 * malformed key, a bad duration or an unproxyable method stops startup instead of failing (or silently
 * not locking) on the first call. Then warns about {@code relock.locks.<name>} entries that no annotated
 * method uses, which are most likely typos.
 */
public final class LockedMethodScanner implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(LockedMethodScanner.class);

    private final ConfigurableListableBeanFactory beanFactory;
    private final LockDefinitionRegistry definitions;
    private final Collection<String> configuredNames;

    /**
     * @param configuredNames the names under {@code relock.locks}, to warn about the unused ones
     */
    public LockedMethodScanner(ConfigurableListableBeanFactory beanFactory, LockDefinitionRegistry definitions,
            Collection<String> configuredNames) {
        this.beanFactory = beanFactory;
        this.definitions = definitions;
        this.configuredNames = configuredNames;
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
