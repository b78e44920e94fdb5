package io.github.relock.spring.aot;

import java.lang.reflect.Method;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ReflectionUtils;

import io.github.relock.spring.DistributedLock;

/**
 * AOT hints for each {@link DistributedLock} method of a bean (Spring finds them through
 * {@code @Reflective} on the annotation): the method itself, which the aspect invokes reflectively; its
 * {@code fallbackMethod}, found by name and invoked reflectively; and the types of its parameters, whose
 * properties key expressions such as {@code #order.id} read.
 */
public class DistributedLockReflectiveProcessor extends SimpleReflectiveProcessor {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    protected void registerMethodHint(ReflectionHints hints, Method method) {
        super.registerMethodHint(hints, method);
        MergedAnnotation<DistributedLock> annotation = MergedAnnotations.from(method).get(DistributedLock.class);
        String fallback = annotation.isPresent() ? annotation.getString("fallbackMethod") : "";
        if (!fallback.isEmpty()) {
            for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(method.getDeclaringClass())) {
                if (candidate.getName().equals(fallback)) {
                    hints.registerMethod(candidate, ExecutableMode.INVOKE);
                }
            }
        }
        bindings.registerReflectionHints(hints, method.getGenericParameterTypes());
    }
}
