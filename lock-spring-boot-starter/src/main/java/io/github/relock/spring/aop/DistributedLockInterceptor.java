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
 * the stage completes, on whichever thread completes it.
 */
public final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final Supplier<RedisLockClient> client;
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
        RedisLockClient client = this.client.get();
        if (definition.completionStage()) {
            LockOwner owner = client.newOwner();
            List<ReentrantDistributedLock> locks = new ArrayList<>(lockNames.size());
            for (String name : lockNames) {
                locks.add(client.getLock(name, owner));
            }
            return invokeUntilComplete(invocation, definition, new LockGroup(locks), target);
        }
        List<ReentrantDistributedLock> locks = new ArrayList<>(lockNames.size());
        for (String name : lockNames) {
            locks.add(client.getLock(name));
        }
        return invokeHeld(invocation, definition, new LockGroup(locks), target);
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
            String key = value == null ? null : value.toString();
            if (key == null || key.isBlank()) {
                throw new InvalidLockKeyException(expression, "Key expression '" + expression + "' of @DistributedLock on "
                        + definition.describeMethod() + " evaluated to " + (key == null ? "null" : "a blank string")
                        + " for this call, so there is no lock to take; the method was not run");
            }
            names.add(definition.name() + ":" + key);
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
            LockGroup group, Object target) throws Throwable {
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
        CompletableFuture<@Nullable Object> completion = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
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
        // a caller that cancels what we returned cancels the work, which then releases the lock
        completion.whenComplete((value, error) -> {
            if (completion.isCancelled()) {
                cancel(stage);
            }
        });
        return completion;
    }

    private static void cancel(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().cancel(true);
        }
        catch (UnsupportedOperationException ex) {
            // a stage that cannot be cancelled releases the lock when it completes on its own
        }
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
