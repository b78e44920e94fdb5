package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import io.github.relock.spring.InvalidLockConfigurationException;

/**
 * An annotated method as the startup checks see it: which bean, which class, which method, so that every
 * message names all three.
 *
 * @param beanName    the bean, or {@code null} when the method is first seen at call time
 * @param method      the most specific method, on {@code targetClass}
 * @param targetClass the bean's class
 */
record LockedMethod(@Nullable String beanName, Method method, Class<?> targetClass) {

    /** {@code ship(String, Order)}: the method with its parameter types' simple names. */
    String signature() {
        return method.getName() + "(" + String.join(", ",
                Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).toList()) + ")";
    }

    InvalidLockConfigurationException invalid(String problem, String action, @Nullable Throwable cause) {
        String bean = beanName != null ? "bean '" + beanName + "' (" + targetClass.getName() + ")" : targetClass.getName();
        return new InvalidLockConfigurationException("@DistributedLock on " + bean + ", method " + signature() + ": "
                + problem, action, cause);
    }
}
