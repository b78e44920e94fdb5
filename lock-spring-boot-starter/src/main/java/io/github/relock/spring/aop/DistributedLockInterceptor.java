package io.github.relock.spring.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.expression.EvaluationException;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.InvalidLockKeyException;
import io.github.relock.spring.LockFailureHandler;
import io.github.relock.spring.LockKeyResolver;
import io.github.relock.spring.LockNotAcquiredException;

/**
 * Runs a {@code @DistributedLock} method under its locks: resolves the keys, takes every lock (sorted by
 * name, within one wait budget), runs the method, and releases in reverse. Parses nothing per call: the
 * {@link LockDefinition} was built at startup.
 *
 * <p>Synchronous methods are owned by the calling thread, so a nested call on the same key re-enters.
 * Methods returning a {@code CompletionStage} are owned by a fresh {@link LockOwner} and release when
 * the stage completes, on whichever thread completes it. The caller gets a future of its own: cancelling
 * it does not stop the work (a {@code CompletableFuture} cannot), so the lock stays until the work's
 * stage completes, and two bodies never run at once. A lock lost meanwhile fails the caller's future
 * at once with {@link LockLostException}.
 */
public final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final Supplier<RedisLockClient> client;
    private final LockLossNotifier lossNotifier = new LockLossNotifier();
    private volatile @Nullable RedisLockClient listenedTo;
    private final Supplier<LockDefinitionRegistry> definitions;
    private final Supplier<LockKeyResolver> keyResolver;
    private final Supplier<@Nullable LockFailureHandler> failureHandler;
    private final Supplier<LockObserver> observer;

    /**
     * Collaborators are looked up on first use, so that creating the advisor early (as every advisor is)
     * does not drag the Redis connection factory along with it.
     */
    public DistributedLockInterceptor(Supplier<RedisLockClient> client, Supplier<LockDefinitionRegistry> definitions,
            Supplier<LockKeyResolver> keyResolver, Supplier<@Nullable LockFailureHandler> failureHandler,
            Supplier<LockObserver> observer) {
        this.client = client;
        this.definitions = definitions;
        this.keyResolver = keyResolver;
        this.failureHandler = failureHandler;
        this.observer = observer;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        if (target == null) {
            return invocation.proceed();
        }
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(target);
        LockDefinition definition = definitions.get().get(invocation.getMethod(), targetClass);
        if (definition == null) {
            return invocation.proceed();
        }
        List<String> lockNames = lockNames(definition, invocation.getArguments(), target, targetClass);
        RedisLockClient client = client();
        if (definition.completionStage()) {
            refuseIfThisThreadHolds(client, lockNames, definition);
            LockOwner owner = client.newOwner();
            List<ReentrantDistributedLock> locks = new ArrayList<>(lockNames.size());
            for (String name : lockNames) {
                locks.add(limited(client.getLock(name, owner), definition));
            }
            return invokeUntilComplete(invocation, definition, new LockGroup(locks), target, owner);
        }
        List<ReentrantDistributedLock> locks = new ArrayList<>(lockNames.size());
        for (String name : lockNames) {
            locks.add(limited(client.getLock(name), definition));
        }
        return invokeHeld(invocation, definition, new LockGroup(locks), target);
    }

    /** The client, which tells this interceptor of lost locks from the first call on. */
    private RedisLockClient client() {
        RedisLockClient current = client.get();
        if (listenedTo != current) {
            synchronized (lossNotifier) {
                if (listenedTo != current) {
                    current.addLockLostListener(lossNotifier);
                    listenedTo = current;
                }
            }
        }
        return current;
    }

    private static ReentrantDistributedLock limited(ReentrantDistributedLock lock, LockDefinition definition) {
        Duration maxHold = definition.maxHold();
        return maxHold == null ? lock : lock.withMaxHold(maxHold);
    }

    /**
     * An asynchronous call's locks belong to its future, not to the calling thread. If the thread already
     * holds one (an outer synchronous call), waiting would wait for itself: fail at once instead.
     */
    private static void refuseIfThisThreadHolds(RedisLockClient client, List<String> lockNames,
            LockDefinition definition) {
        for (String name : lockNames) {
            // asks Redis only if this client knows of a hold by this thread
            if (client.getLock(name).isHeldByCurrentThread()) {
                throw new IllegalStateException("@DistributedLock on " + definition.describeMethod() + " returns a "
                        + "CompletionStage, so its lock '" + name + "' is held by the returned future, not by the "
                        + "calling thread; this thread already holds that lock (an enclosing @DistributedLock call or "
                        + "lock()), so the call would wait for itself until its wait time ran out. Make the outer "
                        + "call asynchronous too, or call this method outside the locked section");
            }
        }
    }

    /** Sorted and without duplicates: the fixed order that keeps two multi-key calls from deadlocking. */
    private List<String> lockNames(LockDefinition definition, @Nullable Object[] arguments, Object target,
            Class<?> targetClass) {
        if (definition.keyExpressions().isEmpty()) {
            return List.of(definition.name());
        }
        TreeSet<String> names = new TreeSet<>();
        for (String expression : definition.keyExpressions()) {
            Object value;
            try {
                value = keyResolver.get().resolve(expression, definition.method(), arguments, target, targetClass);
            }
            catch (EvaluationException ex) {
                throw new InvalidLockKeyException(expression, "Key expression '" + expression + "' of @DistributedLock on "
                        + definition.describeMethod() + " could not be evaluated for this call (" + ex.getMessage()
                        + "); the method was not run", ex);
            }
            // the name has no ':' (checked at startup), so name and key never run into each other
            String key = LockKeyValues.text(value, expression, definition);
            names.add(LockKeyValues.lockName(definition.name() + ":" + key, expression, definition));
        }
        return List.copyOf(names);
    }

    private @Nullable Object invokeHeld(MethodInvocation invocation, LockDefinition definition, LockGroup group,
            Object target) throws Throwable {
        LockObserver.Hold hold;
        try {
            hold = acquire(group, definition);
        }
        catch (LockNotAcquiredException ex) {
            return notAcquired(invocation, definition, target, ex);
        }
        ThreadLockScope.enter(group);
        Object result;
        try {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            ThreadLockScope.exit(group);
            releaseAfterFailure(group, ex);
            hold.released(ex);
            throw ex;
        }
        ThreadLockScope.exit(group);
        RuntimeException lost = releaseAfterSuccess(group, definition);
        hold.released(lost);
        if (lost != null) {
            throw lost;
        }
        return result;
    }

    private @Nullable Object invokeUntilComplete(MethodInvocation invocation, LockDefinition definition,
            LockGroup group, Object target, LockOwner owner) throws Throwable {
        LockObserver.Hold hold;
        try {
            hold = acquire(group, definition);
        }
        catch (LockNotAcquiredException ex) {
            return notAcquired(invocation, definition, target, ex);
        }
        Object result;
        try {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            releaseAfterFailure(group, ex);
            hold.released(ex);
            throw ex;
        }
        if (result == null) {
            RuntimeException lost = releaseAfterSuccess(group, definition);
            hold.released(lost);
            if (lost != null) {
                throw lost;
            }
            return null;
        }
        CompletionStage<?> stage = (CompletionStage<?>) result;
        // the caller gets a future of its own: cancelling or completing it cannot end the work, nor the lock
        CompletableFuture<@Nullable Object> completion = new CompletableFuture<>();
        lossNotifier.register(owner.id(), event -> completion.completeExceptionally(new LockLostException(
                event.lockName(), "Lock '" + event.lockName() + "' of " + definition.describeMethod() + " was lost "
                        + "while its CompletionStage was still running (its lease or maximum hold time ran out); the "
                        + "work may overlap with another holder's")));
        stage.whenComplete((value, error) -> {
            lossNotifier.unregister(owner.id());
            Throwable outcome = error;
            try {
                if (error != null) {
                    releaseAfterFailure(group, error);
                }
                else {
                    outcome = releaseAfterSuccess(group, definition);
                }
            }
            catch (Throwable unexpected) {
                outcome = unexpected;
            }
            hold.released(outcome);
            if (outcome != null) {
                completion.completeExceptionally(outcome);
            }
            else {
                completion.complete(value);
            }
        });
        return completion;
    }

    private LockObserver.Hold acquire(LockGroup group, LockDefinition definition) throws Throwable {
        LockObserver.Acquisition acquisition = observer.get().acquisitionStarted(definition.name());
        long started = System.nanoTime();
        ReentrantDistributedLock missed;
        try {
            missed = group.acquire(definition.waitTime(), definition.leaseTime());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            acquisition.failed(ex);
            if (declares(definition.method(), InterruptedException.class)) {
                throw ex;
            }
            throw new LockNotAcquiredException(definition.name(), group.keys(), definition.waitTime(),
                    Duration.ofNanos(System.nanoTime() - started), ex);
        }
        catch (Throwable ex) {
            acquisition.failed(ex);
            throw ex;
        }
        if (missed != null) {
            acquisition.notAcquired();
            throw new LockNotAcquiredException(definition.name(), missed.getKey(), definition.waitTime(),
                    Duration.ofNanos(System.nanoTime() - started), null);
        }
        return acquisition.acquired();
    }

    private @Nullable Object notAcquired(MethodInvocation invocation, LockDefinition definition, Object target,
            LockNotAcquiredException exception) throws Throwable {
        LockFallback fallback = definition.fallback();
        if (fallback != null) {
            return fallback.invoke(target, invocation.getArguments(), exception);
        }
        LockFailureHandler handler = failureHandler.get();
        if (handler != null) {
            return handler.lockNotAcquired(definition.method(), invocation.getArguments(), exception);
        }
        throw exception;
    }

    private static void releaseAfterFailure(LockGroup group, Throwable failure) {
        for (RuntimeException releaseFailure : group.release()) {
            if (releaseFailure != failure) {
                failure.addSuppressed(releaseFailure);
            }
        }
    }

    /**
     * Releases after the method returned normally.
     *
     * @return the exception to throw if a lock turned out to be lost while the method ran (its work may
     *         have overlapped with another holder's), else {@code null}
     */
    private static @Nullable RuntimeException releaseAfterSuccess(LockGroup group, LockDefinition definition) {
        RuntimeException lost = null;
        for (RuntimeException failure : group.release()) {
            if (failure instanceof IllegalMonitorStateException && lost == null) {
                lost = failure; // LockLostException, or a hold that an inner call already gave up
            }
            else if (lost != null) {
                lost.addSuppressed(failure);
            }
            else {
                // the method's work is done; the lock frees itself when its lease ends
                log.warn("Could not release a lock of {} after it returned; it will be freed when its lease ends",
                        definition.describeMethod(), failure);
            }
        }
        return lost;
    }

    private static boolean declares(Method method, Class<? extends Throwable> exceptionType) {
        return Arrays.stream(method.getExceptionTypes()).anyMatch(type -> type.isAssignableFrom(exceptionType));
    }
}
