package io.github.relock.spring.internal;

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
 *
 * <p>Registered with the first post-processors, it also sees which beans were post-processed at all: one it never
 * saw was created before them (for a {@code BeanFactoryPostProcessor}), and so was never proxied either.
 */
public final class LockedMethodProxyCheck implements BeanPostProcessor, PriorityOrdered {

    private final Set<Class<?>> checked = ConcurrentHashMap.newKeySet();
    private final Set<String> postProcessed = ConcurrentHashMap.newKeySet();

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        postProcessed.add(beanName);
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

    /** Whether the bean called {@code beanName} went through the post-processors (this one first among them). */
    public boolean postProcessed(String beanName) {
        return postProcessed.contains(beanName);
    }

    /** Created with the first post-processors, so that creating it does not make advisors look for beans early. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
