package io.github.relock.spring.internal;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.core.Ordered;

/**
 * Applies the {@link DistributedLockInterceptor} to every {@code @DistributedLock} method.
 *
 * <p>Its order decides where the lock sits among other advice. The {@linkplain #DEFAULT_ORDER default}
 * puts it outside {@code @Transactional} (whose advisor defaults to the lowest precedence), so the lock
 * is taken before the transaction begins and released after it commits.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    /** Outside {@code @Transactional} at its default order, with room for advice in between. */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    private final transient DistributedLockInterceptor interceptor;
    private final transient Pointcut pointcut = new DistributedLockPointcut();

    public DistributedLockAdvisor(DistributedLockInterceptor interceptor, int order) {
        this.interceptor = interceptor;
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
