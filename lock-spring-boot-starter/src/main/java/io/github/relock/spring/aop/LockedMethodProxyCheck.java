package io.github.relock.spring.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

import io.github.relock.spring.DistributedLock;

/**
 * Checks, before a bean is proxied, that every {@code @DistributedLock} method of it can be intercepted
 * (not private, final or static, not in a final class). Runs before proxying because a final class makes
 * proxy creation itself fail, with a message that does not mention the lock.
 */
public final class LockedMethodProxyCheck implements BeanPostProcessor, PriorityOrdered {

    private final Set<Class<?>> checked = ConcurrentHashMap.newKeySet();

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        Class<?> type = ClassUtils.getUserClass(bean);
        if (checked.contains(type) || !AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
            return bean;
        }
        Map<Method, DistributedLock> annotated = LockAnnotationLookup.annotatedMethods(type);
        for (Method method : annotated.keySet()) {
            LockDefinitionFactory.checkProxyable(beanName, method, type);
        }
        checked.add(type);
        return bean;
    }

    /** Created with the first post-processors, so that creating it does not make advisors look for beans early. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
