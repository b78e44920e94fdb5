package io.github.relock.spring;

import java.lang.reflect.Method;
import java.util.Arrays;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ReflectionUtils;

/**
 * AOT hints for each {@link DistributedLock} method of a bean (Spring finds them through
 * {@code @Reflective} on the annotation): the method itself, which the aspect invokes reflectively; its
 * {@code fallbackMethod}, found by name and invoked reflectively; and the types of its parameters, whose
 * properties key expressions such as {@code #order.id} read.
 */
final class DistributedLockReflectiveProcessor extends SimpleReflectiveProcessor {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    protected void registerMethodHint(ReflectionHints hints, Method method) {
        super.registerMethodHint(hints, method);
        String fallback = fallbackMethod(method);
        if (!fallback.isEmpty()) {
            for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(method.getDeclaringClass())) {
                if (candidate.getName().equals(fallback)) {
                    hints.registerMethod(candidate, ExecutableMode.INVOKE);
                }
            }
        }
        bindings.registerReflectionHints(hints, method.getGenericParameterTypes());
    }

    /**
     * The {@code fallbackMethod} of the annotation that names this processor in its {@code @Reflective}: read from
     * there, so that the annotation depends on its processor and not the other way round.
     */
    private static String fallbackMethod(Method method) {
        return MergedAnnotations.from(method).stream(Reflective.class)
                .filter(reflective -> Arrays.asList(reflective.getClassArray("value"))
                        .contains(DistributedLockReflectiveProcessor.class))
                .map(reflective -> reflective.getRoot().getValue("fallbackMethod", String.class).orElse(""))
                .findFirst().orElse("");
    }
}
