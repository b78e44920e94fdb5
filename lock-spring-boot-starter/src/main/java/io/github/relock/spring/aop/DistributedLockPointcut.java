package io.github.relock.spring.aop;

import java.lang.reflect.Method;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

import io.github.relock.spring.DistributedLock;

/** Matches methods that carry {@link DistributedLock @DistributedLock}, here or on an interface they implement. */
final class DistributedLockPointcut extends StaticMethodMatcherPointcut {

    DistributedLockPointcut() {
        setClassFilter(type -> AnnotationUtils.isCandidateClass(type, DistributedLock.class));
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return AnnotatedElementUtils.hasAnnotation(AopUtils.getMostSpecificMethod(method, targetClass),
                DistributedLock.class);
    }
}
