package io.github.relock.spring.aop;

import java.util.List;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/** How a call's locks are held around the method, for one kind of return type (see {@link LockDefinition.Holding}). */
interface LockingStrategy {

    /** Takes the locks named {@code lockNames}, runs the method, and gives them back when its work is done. */
    @Nullable Object invoke(MethodInvocation invocation, LockDefinition definition, List<String> lockNames,
            Object target) throws Throwable;
}
