package io.github.relock.spring.internal;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;

import io.github.relock.spring.DistributedLock;

/** Matches methods that carry {@link DistributedLock @DistributedLock}, here, on a method they override, or on an interface method the bean class implements with them
 * (see {@link LockAnnotationLookup}). */
final class DistributedLockPointcut extends StaticMethodMatcherPointcut {

    DistributedLockPointcut() {
        setClassFilter(type -> AnnotationUtils.isCandidateClass(type, DistributedLock.class));
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return LockAnnotationLookup.find(method, targetClass) != null;
    }
}
