package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

import io.github.relock.spring.DistributedLock;

/**
 * Finds the {@link DistributedLock @DistributedLock} that applies to a method of a bean class: on the method
 * itself or a method it overrides, or on an interface method that the bean class implements with it, whichever
 * class declares the implementation.
 *
 * <p>The last case is what a search from the method alone misses: an implementation inherited from a base class
 * that does not implement the annotated interface. Only the bean class joins the two, so the search starts from
 * it, as Spring's {@code AnnotationTransactionAttributeSource} does for {@code @Transactional}.
 */
final class LockAnnotationLookup {

    private LockAnnotationLookup() {
    }

    /**
     * The annotation of {@code method} as called on a bean of {@code targetClass}, or {@code null}.
     *
     * @param method      the invoked method, possibly declared on an interface or a superclass
     * @param targetClass the class of the bean behind the proxy
     */
    static @Nullable DistributedLock find(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        DistributedLock found = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (found != null) {
            return found;
        }
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(targetClass)) {
            for (Method declared : type.getMethods()) {
                if (declared.getName().equals(specific.getName())
                        && declared.getParameterCount() == specific.getParameterCount()
                        && specific.equals(AopUtils.getMostSpecificMethod(declared, targetClass))) {
                    found = AnnotatedElementUtils.findMergedAnnotation(declared, DistributedLock.class);
                    if (found != null) {
                        return found;
                    }
                }
            }
        }
        return null;
    }

    /** Every method of {@code type} that {@link #find} gives an annotation for, keyed by the most specific method. */
    static Map<Method, DistributedLock> annotatedMethods(Class<?> type) {
        return MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<DistributedLock>) method -> find(method, type));
    }
}
