package io.github.relock.spring.aop;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.LockNotAcquiredException;

/**
 * Holds the locks until the {@code CompletionStage} the method returned completes, under an owner of their
 * own, so the release may happen on any thread. The caller gets a separate future: cancelling it cannot
 * stop the work (a {@code CompletableFuture} never does), so it does not release the lock either, and two
 * bodies never run at once. A lock lost meanwhile fails the caller's future at once.
 */
final class CompletionStageLocking implements LockingStrategy {

    private final LockServices services;

    CompletionStageLocking(LockServices services) {
        this.services = services;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation, LockDefinition definition, List<String> lockNames,
            Object target) throws Throwable {
        DistributedLockClient client = services.client();
        refuseIfThisThreadHolds(lockNames, definition);
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = lockNames.size() == 1 ? client.getLock(lockNames.get(0), owner)
                : client.getMultiLock(lockNames, owner);
        LockCall call = new LockCall(invocation, definition, lock, target, services);
        LockObserver.Hold hold;
        try {
            hold = call.acquire();
        }
        catch (LockNotAcquiredException ex) {
            return call.whenNotAcquired(ex);
        }
        Object result;
        try {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            call.releaseAfterFailure(ex);
            hold.released(ex);
            throw ex;
        }
        if (result == null) {
            RuntimeException lost = call.releaseAfterSuccess();
            hold.released(lost);
            if (lost != null) {
                throw lost;
            }
            return null;
        }
        return holdUntilComplete((CompletionStage<?>) result, call, hold, owner);
    }

    private CompletableFuture<@Nullable Object> holdUntilComplete(CompletionStage<?> stage, LockCall call,
            LockObserver.Hold hold, LockOwner owner) {
        CompletableFuture<@Nullable Object> completion = new CompletableFuture<>();
        services.lossNotifier().register(owner.id(), event -> completion.completeExceptionally(new LockLostException(
                event.lockName(), "Lock '" + event.lockName() + "' of " + call.definition.describeMethod() + " was lost "
                        + "while its CompletionStage was still running (its lease or maximum hold time ran out); the "
                        + "work may overlap with another holder's")));
        stage.whenComplete((value, error) -> {
            services.lossNotifier().unregister(owner.id());
            Throwable outcome = error;
            try {
                if (error != null) {
                    call.releaseAfterFailure(error);
                }
                else {
                    outcome = call.releaseAfterSuccess();
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

    /**
     * The call's locks belong to its future, not to the calling thread. If the thread already holds one (an
     * outer synchronous call), waiting would wait for itself: fail at once instead.
     */
    private static void refuseIfThisThreadHolds(List<String> lockNames, LockDefinition definition) {
        for (String name : lockNames) {
            // local: asking Redis would also count as the owner seeing a loss it was never told of
            if (ThreadLockScope.holds(name)) {
                throw new IllegalStateException("@DistributedLock on " + definition.describeMethod() + " returns a "
                        + "CompletionStage, so its lock '" + name + "' is held by the returned future, not by the "
                        + "calling thread; this thread already holds that lock through an enclosing @DistributedLock "
                        + "call, so the call would wait for itself until its wait time ran out. Make the outer "
                        + "call asynchronous too, or call this method outside the locked section");
            }
        }
    }
}
