package io.github.relock.spring.aop;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.LockOwner;
import io.github.relock.core.ReentrantDistributedLock;

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
        return null;
    }

    @Override
    void entered(ReentrantDistributedLock lock) {
        ThreadLockScope.enter(lock);
    }

    @Override
    void left(ReentrantDistributedLock lock) {
        ThreadLockScope.exit(lock);
    }

    @Override
    @Nullable Object returned(@Nullable Object result, LockCall call, LockObserver.Hold hold,
            @Nullable LockOwner owner) {
        return releaseNow(result, call, hold);
    }
}
