package io.github.relock.spring.aop;

import java.util.List;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.LockNotAcquiredException;

/**
 * Holds the locks while the method runs on the calling thread, which owns them: a nested call on the same
 * lock re-enters it. A transaction committing inside sees them ({@link ThreadLockScope}).
 */
final class SynchronousLocking implements LockingStrategy {

    private final LockServices services;

    SynchronousLocking(LockServices services) {
        this.services = services;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation, LockDefinition definition, List<String> lockNames,
            Object target) throws Throwable {
        DistributedLockClient client = services.client();
        ReentrantDistributedLock lock = lockNames.size() == 1 ? client.getLock(lockNames.get(0))
                : client.getMultiLock(lockNames, null);
        LockCall call = new LockCall(invocation, definition, lock, target, services);
        LockObserver.Hold hold;
        try {
            hold = call.acquire();
        }
        catch (LockNotAcquiredException ex) {
            return call.whenNotAcquired(ex);
        }
        ThreadLockScope.enter(lock);
        Object result;
        try {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            ThreadLockScope.exit(lock);
            call.releaseAfterFailure(ex);
            hold.released(ex);
            throw ex;
        }
        ThreadLockScope.exit(lock);
        RuntimeException lost = call.releaseAfterSuccess();
        hold.released(lost);
        if (lost != null) {
            throw lost;
        }
        return result;
    }
}
