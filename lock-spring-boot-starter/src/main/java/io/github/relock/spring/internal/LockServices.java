package io.github.relock.spring.internal;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.spring.LockFailureHandler;
import io.github.relock.spring.LockObserver;

/**
 * What every locked call needs from the application, looked up on first use: creating the advisor early
 * (as every advisor is) must not drag the Redis connection factory along with it.
 */
final class LockServices {

    private final Supplier<DistributedLockClient> client;
    private final Supplier<LockObserver> observer;
    private final Supplier<@Nullable LockFailureHandler> failureHandler;
    private final LockLossNotifier lossNotifier = new LockLossNotifier();
    private volatile @Nullable DistributedLockClient listenedTo;
    private volatile @Nullable LockObserver guardedObserver;

    LockServices(Supplier<DistributedLockClient> client, Supplier<LockObserver> observer,
            Supplier<@Nullable LockFailureHandler> failureHandler) {
        this.client = client;
        this.observer = observer;
        this.failureHandler = failureHandler;
    }

    /** The client, which tells {@link #lossNotifier()} of lost locks from the first call on. */
    DistributedLockClient client() {
        DistributedLockClient current = client.get();
        if (listenedTo != current) {
            synchronized (lossNotifier) { // no I/O in here: adding a listener is local
                if (listenedTo != current) {
                    current.addLockLostListener(lossNotifier);
                    listenedTo = current;
                }
            }
        }
        return current;
    }

    /** The observers, whose failures are logged and never reach the call. */
    LockObserver observer() {
        LockObserver current = guardedObserver;
        if (current == null) {
            current = GuardedLockObserver.of(observer.get()); // a race wraps it twice; both work alike
            guardedObserver = current;
        }
        return current;
    }

    @Nullable LockFailureHandler failureHandler() {
        return failureHandler.get();
    }

    LockLossNotifier lossNotifier() {
        return lossNotifier;
    }
}
