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
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
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
        Map<Method, DistributedLock> annotated = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<DistributedLock>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class));
        for (Method method : annotated.keySet()) {
            definitions.register(beanName, method, type);
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
