package io.github.relock.spring.internal;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.LockMode;
import io.github.relock.spring.LockObserver;
import io.github.relock.spring.internal.held.ThreadLockScope;

/**
 * Holds the locks until the {@code CompletionStage} the method returned completes, under an owner of their
 * own, so the release may happen on any thread. The caller gets a separate future: cancelling it cannot
 * stop the work (a {@code CompletableFuture} never does), so it does not release the lock either, and two
 * bodies never run at once. A lock lost meanwhile fails the caller's future at once.
 */
final class CompletionStageLocking extends LockingStrategy {

    CompletionStageLocking(LockServices services) {
        super(services);
    }

    @Override
    LockOwner owner(List<String> lockNames, LockDefinition definition) {
        refuseIfThisThreadHolds(lockNames, definition);
        return services.client().newOwner();
    }

    @Override
    void entered(ReentrantDistributedLock lock, LockDefinition definition) {
        // a read hold lets nested reads in: they do not wait for it
        ThreadLockScope.enterFutureBody(definition.name(), lock, definition.mode() == LockMode.READ);
    }

    @Override
    void left(ReentrantDistributedLock lock) {
        ThreadLockScope.exit(lock);
    }

    @Override
    @Nullable Object returned(@Nullable Object result, LockCall call, LockObserver.Hold hold,
            @Nullable LockOwner owner) {
        if (result == null) {
            return releaseNow(null, call, hold);
        }
        return holdUntilComplete((CompletionStage<?>) result, call, hold, Objects.requireNonNull(owner));
    }

    private CompletableFuture<@Nullable Object> holdUntilComplete(CompletionStage<?> stage, LockCall call,
            LockObserver.Hold hold, LockOwner owner) {
        CompletableFuture<@Nullable Object> completion = new CompletableFuture<>();
        services.lossNotifier().register(owner.id(), event -> completion.completeExceptionally(new LockLostException(
                event.lockName(), event.key(), "Lock '" + event.lockName() + "' of " + call.definition.describeMethod() + " was lost "
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
        // local: asking Redis would also count as the owner seeing a loss it was never told of
        String name = ThreadLockScope.firstHeld(lockNames);
        if (name != null) {
            throw new IllegalStateException("@DistributedLock on " + definition.describeMethod() + " returns a "
                    + "CompletionStage, so its lock '" + name + "' is held by the returned future, not by the "
                    + "calling thread; this thread already holds that lock through an enclosing @DistributedLock "
                    + "call, so the call would wait for itself until its wait time ran out. Make the outer "
                    + "call asynchronous too, or call this method outside the locked section");
        }
    }
}
