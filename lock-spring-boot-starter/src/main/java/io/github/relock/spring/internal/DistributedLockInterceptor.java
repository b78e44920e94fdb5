package io.github.relock.spring.internal;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopProxyUtils;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.spring.LockFailureHandler;
import io.github.relock.spring.LockObserver;

/**
 * Runs a {@code @DistributedLock} method under its locks: finds the method's {@link LockDefinition} (built
 * at startup), names this call's locks, and hands over to the {@link LockingStrategy} of the method's
 * return type. Parses nothing per call and never talks to Redis itself.
 */
public final class DistributedLockInterceptor implements MethodInterceptor {

    private final Supplier<LockDefinitionRegistry> definitions;
    private final Map<LockDefinition.Holding, LockingStrategy> strategies = new EnumMap<>(LockDefinition.Holding.class);
    private final LockServices services;
    private volatile @Nullable Object reactive; // a ReactiveLocking, created on the first reactive call: it needs Reactor

    /**
     * Collaborators are looked up on first use, so that creating the advisor early (as every advisor is)
     * does not drag the Redis connection factory along with it.
     */
    public DistributedLockInterceptor(Supplier<DistributedLockClient> client, Supplier<LockDefinitionRegistry> definitions,
            Supplier<@Nullable LockFailureHandler> failureHandler, Supplier<LockObserver> observer) {
        this.definitions = definitions;
        this.services = new LockServices(client, observer, failureHandler);
        strategies.put(LockDefinition.Holding.SYNCHRONOUS, new SynchronousLocking(services));
        strategies.put(LockDefinition.Holding.COMPLETION_STAGE, new CompletionStageLocking(services));
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        if (target == null) {
            return invocation.proceed();
        }
        LockDefinition definition = definitions.get().get(invocation.getMethod(), AopProxyUtils.ultimateTargetClass(target));
        if (definition == null) {
            return invocation.proceed();
        }
        if (definition.holding() == LockDefinition.Holding.REACTIVE) {
            return reactive().invoke(invocation, definition,
                    LockNaming.names(definition, invocation.getArguments(), target), target);
        }
        return strategies.get(definition.holding()).invoke(invocation, definition,
                LockNaming.names(definition, invocation.getArguments(), target), target);
    }

    private ReactiveLocking reactive() {
        Object current = reactive;
        if (current == null) {
            current = new ReactiveLocking(services); // a race creates two; both work alike
            reactive = current;
        }
        return (ReactiveLocking) current;
    }
}
