package io.github.relock.spring.internal;

import java.util.List;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.LockOwner;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.LockMode;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.LockObserver;

/**
 * How a call's locks are held around the method, for one kind of return type (see
 * {@link LockDefinition.Holding}). The steps every kind shares are here: take the locks or fall back, run
 * the method, give the locks back if it threw. What differs is who owns the locks and when they go.
 */
abstract class LockingStrategy {

    final LockServices services;

    LockingStrategy(LockServices services) {
        this.services = services;
    }

    /** Takes the locks named {@code lockNames}, runs the method, and gives them back when its work is done. */
    final @Nullable Object invoke(MethodInvocation invocation, LockDefinition definition, List<String> lockNames,
            Object target) throws Throwable {
        LockOwner owner = owner(lockNames, definition);
        DistributedLockClient client = services.client();
        ReentrantDistributedLock lock = lockNames.size() > 1 ? client.getMultiLock(lockNames, owner)
                : definition.mode().readWrite() ? readWriteSide(client, lockNames.get(0), owner, definition.mode())
                : definition.fair() ? (owner == null ? client.getFairLock(lockNames.get(0))
                        : client.getFairLock(lockNames.get(0), owner))
                : owner == null ? client.getLock(lockNames.get(0)) : client.getLock(lockNames.get(0), owner);
        LockCall call = new LockCall(invocation, definition, lock, target, services);
        LockObserver.Hold hold;
        try {
            hold = call.acquire();
        }
        catch (LockNotAcquiredException ex) {
            return call.whenNotAcquired(ex);
        }
        entered(lock, definition);
        Object result;
        try {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            left(lock);
            call.releaseAfterFailure(ex);
            hold.released(ex);
            throw ex;
        }
        left(lock);
        return returned(result, call, hold, owner);
    }

    private static ReentrantDistributedLock readWriteSide(DistributedLockClient client, String name,
            @Nullable LockOwner owner, LockMode mode) {
        ReadWriteDistributedLock lock = owner == null ? client.getReadWriteLock(name)
                : client.getReadWriteLock(name, owner);
        return mode == LockMode.READ ? lock.readLock() : lock.writeLock();
    }

    /** Who owns the locks: null for the calling thread. May refuse the call. */
    abstract @Nullable LockOwner owner(List<String> lockNames, LockDefinition definition);

    /** The locks are held and the method is about to run on this thread. */
    void entered(ReentrantDistributedLock lock, LockDefinition definition) {
    }

    /** The method returned or threw on this thread. */
    void left(ReentrantDistributedLock lock) {
    }

    /** The method returned {@code result}: give the locks back now, or when its work ends, and return. */
    abstract @Nullable Object returned(@Nullable Object result, LockCall call, LockObserver.Hold hold,
            @Nullable LockOwner owner);

    /** Gives the locks back now; throws if one turned out lost while the method ran. */
    static @Nullable Object releaseNow(@Nullable Object result, LockCall call, LockObserver.Hold hold) {
        RuntimeException lost = call.releaseAfterSuccess();
        hold.released(lost);
        if (lost != null) {
            throw lost;
        }
        return result;
    }
}
