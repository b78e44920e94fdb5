package io.github.relock.spring.autoconfigure;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.transaction.ConfigurableTransactionManager;

import io.github.relock.spring.internal.LockLostTransactionGuard;

/**
 * Adds the {@link LockLostTransactionGuard} to every transaction manager of the context, including ones
 * the application declares itself, so that none commits work done under a lock that was lost.
 */
final class LockLostTransactionGuardRegistrar implements BeanPostProcessor, PriorityOrdered {

    private final LockLostTransactionGuard guard = new LockLostTransactionGuard();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ConfigurableTransactionManager manager
                && manager.getTransactionExecutionListeners().stream().noneMatch(LockLostTransactionGuard.class::isInstance)) {
            manager.addListener(guard);
        }
        return bean;
    }

    /** Created with the first post-processors, so that creating it does not make advisors look for beans early. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
