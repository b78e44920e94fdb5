package io.github.relock.spring.internal;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/** {@code #root} of a key expression: the call being locked. */
public final class LockKeyRootObject {

    private final Method method;
    private final @Nullable Object[] args;
    private final Object target;
    private final Class<?> targetClass;

    public LockKeyRootObject(Method method, @Nullable Object[] args, Object target, Class<?> targetClass) {
        this.method = method;
        this.args = args;
        this.target = target;
        this.targetClass = targetClass;
    }

    /** {@code #root.method}: the annotated method. */
    public Method getMethod() {
        return method;
    }

    /** {@code #root.methodName}. */
    public String getMethodName() {
        return method.getName();
    }

    /** {@code #root.args}: the call's arguments. */
    public @Nullable Object[] getArgs() {
        return args;
    }

    /** {@code #root.target}: the bean (not its proxy). */
    public Object getTarget() {
        return target;
    }

    /** {@code #root.targetClass}: the bean's class. */
    public Class<?> getTargetClass() {
        return targetClass;
    }
}
