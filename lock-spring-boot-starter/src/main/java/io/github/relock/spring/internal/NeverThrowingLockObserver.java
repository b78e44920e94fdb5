package io.github.relock.spring.internal;

import io.github.relock.spring.LockObserver;

/**
 * A {@link LockObserver} that logs its own failures instead of throwing them, so it is used as it is, never guarded
 * again ({@link GuardedLockObserver#of}).
 */
interface NeverThrowingLockObserver extends LockObserver {
}
