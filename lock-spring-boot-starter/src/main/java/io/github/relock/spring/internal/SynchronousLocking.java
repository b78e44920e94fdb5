package io.github.relock.spring.internal;

import java.util.List;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.LockOwner;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.LockObserver;
import io.github.relock.spring.internal.held.ThreadLockScope;

/**
 * Holds the locks while the method runs on the calling thread, which owns them: a nested call on the same
 * lock re-enters it. A transaction committing inside sees them ({@link ThreadLockScope}).
 */
final class SynchronousLocking extends LockingStrategy {

    SynchronousLocking(LockServices services) {
        super(services);
    }

    @Override
    @Nullable LockOwner owner(List<String> lockNames, LockDefinition definition) {
        String name = ThreadLockScope.firstHeldForAFuture(lockNames);
        if (name != null) {
            throw new IllegalStateException("@DistributedLock on " + definition.describeMethod() + " holds its lock "
                    + "for the calling thread, but this thread already holds its lock '" + name + "' for the future of "
                    + "an enclosing @DistributedLock call that returns a CompletionStage, which cannot let go "
                    + "before its body has returned, so the call would wait for itself until its wait time ran "
                    + "out. Call it once the outer call's result has completed, or outside the locked section");
        }
        return null;
    }

    @Override
    void entered(ReentrantDistributedLock lock, LockDefinition definition) {
        ThreadLockScope.enter(definition.name(), lock);
    }

    @Override
    void left(ReentrantDistributedLock lock) {
        ThreadLockScope.exit(lock);
    }

    @Override
    @Nullable Object returned(@Nullable Object result, LockCall call, LockObserver.Hold hold,
            @Nullable LockOwner owner) {
        @Nullable Object value = releaseNow(result, call, hold);
        String unfinished = LockedMethodChecks.unfinishedWork(call.definition.method(), value);
        if (unfinished != null) {
            if (value instanceof BaseStream<?, ?> stream) {
                stream.close(); // never consumed now: what it holds open (a cursor, a connection) goes
            }
            throw new IllegalStateException("@DistributedLock on " + call.definition.describeMethod() + " returned "
                    + unfinished + ", but its declared return type " + call.definition.method().getReturnType()
                    .getName() + " made the lock be held only while the method ran: that work would run without "
                    + "the lock. Declare the return type as CompletableFuture or CompletionStage (held until it "
                    + "completes), or as Mono or Flux (held for each subscription); collect a stream or an iterator "
                    + "inside the method");
        }
        return value;
    }
}
