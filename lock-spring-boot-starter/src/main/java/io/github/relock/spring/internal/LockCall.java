package io.github.relock.spring.internal;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;

import io.github.relock.core.LockLostException;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.LockFailureHandler;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.LockObserver;

/**
 * One call of a {@code @DistributedLock} method and its lock (one lock, or a multi-lock for several keys):
 * taking it within the wait time, what happens when it is not taken, and giving it back. Whichever way the
 * return value is held, these steps are the same.
 */
final class LockCall {

    private static final Logger log = LoggerFactory.getLogger(LockCall.class);

    final MethodInvocation invocation;
    final LockDefinition definition;
    final ReentrantDistributedLock lock;
    private final Object target;
    private final LockServices services;

    LockCall(MethodInvocation invocation, LockDefinition definition, ReentrantDistributedLock lock, Object target,
            LockServices services) {
        this.invocation = invocation;
        this.definition = definition;
        this.lock = lock;
        this.target = target;
        this.services = services;
    }

    /**
     * Takes the lock within the wait time.
     *
     * @throws LockNotAcquiredException if it was busy for the whole wait, or the wait was interrupted (and the
     *                                  method does not declare {@link InterruptedException})
     */
    LockObserver.Hold acquire() throws Throwable {
        LockObserver.Acquisition acquisition = services.observer().acquisitionStarted(definition.name());
        long started = System.nanoTime();
        boolean acquired;
        try {
            acquired = lock.tryLock(definition.settings());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            acquisition.failed(ex);
            if (declares(definition.method(), InterruptedException.class)) {
                throw ex;
            }
            throw notAcquired(started, ex);
        }
        catch (Throwable ex) {
            acquisition.failed(ex);
            throw ex;
        }
        if (!acquired) {
            acquisition.notAcquired();
            throw notAcquired(started, null);
        }
        return acquisition.acquired();
    }

    private LockNotAcquiredException notAcquired(long started, @Nullable Throwable cause) {
        return new LockNotAcquiredException(lock.getName(), lock.getKey(), definition.settings().waitTime(),
                Duration.ofNanos(System.nanoTime() - started), cause);
    }

    /** The fallback method, else the failure handler, else the exception: the method never runs unlocked. */
    @Nullable Object whenNotAcquired(LockNotAcquiredException exception) throws Throwable {
        LockFallback fallback = definition.fallback();
        if (fallback != null) {
            Object proxy = invocation instanceof ProxyMethodInvocation through ? through.getProxy() : null;
            return fallback.invoke(proxy, target, invocation.getArguments(), exception);
        }
        LockFailureHandler handler = services.failureHandler();
        if (handler != null) {
            return handler.lockNotAcquired(definition.method(), invocation.getArguments(), exception);
        }
        throw exception;
    }

    /** Gives the lock back after the method failed; a failure to release rides along with the method's. */
    void releaseAfterFailure(Throwable failure) {
        try {
            lock.unlock();
        }
        catch (RuntimeException ex) {
            if (ex != failure) {
                failure.addSuppressed(ex);
            }
        }
    }

    /** What a call learns when the lock client closed while it ran: renewal stopped, so its lock may have gone. */
    static LockLostException closedUnder(ReentrantDistributedLock lock, LockDefinition definition) {
        return new LockLostException(lock.getName(), lock.getKey(), "Lock '" + lock.getName() + "' was given up while "
                + definition.describeMethod() + " ran: the lock client closed (the application is shutting down) "
                + "and stopped renewing its lease, so another holder may have run meanwhile");
    }

    /**
     * Gives the lock back after the method returned normally.
     *
     * @return the exception to throw if the lock turned out to be lost while the method ran (its work may have
     *         overlapped with another holder's), or the client closed under it, else {@code null}
     */
    @Nullable RuntimeException releaseAfterSuccess() {
        if (services.client().isClosed()) {
            // closed while the method ran (it could not have been taken after): renewal stopped under it
            return closedUnder(lock, definition);
        }
        boolean outlivedLease = lock.isLost(); // a fixed lease the local clock saw run out, Redis may still keep
        try {
            lock.unlock();
        }
        catch (LockLostException | IllegalMonitorStateException ex) {
            return ex; // lost, or a hold that an inner call already gave up
        }
        catch (RuntimeException ex) {
            // the method's work is done; the lock frees itself when its lease ends
            log.warn("Could not release a lock of {} after it returned; it will be freed when its lease ends",
                    definition.describeMethod(), ex);
            return null;
        }
        return outlivedLease ? new LockLostException(lock.getName(), lock.getKey(), "Lock '" + lock.getName()
                + "' outlived its lease while the method ran; another holder may have run meanwhile") : null;
    }

    private static boolean declares(Method method, Class<? extends Throwable> exceptionType) {
        return Arrays.stream(method.getExceptionTypes()).anyMatch(type -> type.isAssignableFrom(exceptionType));
    }
}
