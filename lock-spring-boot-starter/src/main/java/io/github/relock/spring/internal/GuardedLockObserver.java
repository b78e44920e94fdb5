package io.github.relock.spring.internal;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.relock.spring.LockObserver;

/**
 * A {@link LockObserver} whose failures are logged, never thrown: metrics and tracing must not change what a
 * locked call does. Thrown from {@code acquired()}, a failure would skip the release of a lock just taken
 * (held for good under the watchdog), or never complete a reactive or asynchronous caller.
 */
final class GuardedLockObserver implements NeverThrowingLockObserver {

    private static final Logger log = LoggerFactory.getLogger(GuardedLockObserver.class);

    private final LockObserver observer;

    private GuardedLockObserver(LockObserver observer) {
        this.observer = observer;
    }

    /** {@code observer} guarded; one that is already (or guards each of its members) as it is. */
    static LockObserver of(LockObserver observer) {
        return observer == NOOP || observer instanceof NeverThrowingLockObserver ? observer
                : new GuardedLockObserver(observer);
    }

    @Override
    public Acquisition acquisitionStarted(String lockName) {
        Acquisition acquisition = guarded(() -> observer.acquisitionStarted(lockName), Acquisition.NOOP);
        return new Acquisition() {
            @Override
            public Hold acquired() {
                Hold hold = guarded(acquisition::acquired, error -> { });
                return error -> guarded(() -> hold.released(error));
            }

            @Override
            public void notAcquired() {
                guarded(acquisition::notAcquired);
            }

            @Override
            public void failed(Throwable error) {
                guarded(() -> acquisition.failed(error));
            }
        };
    }

    private <T> T guarded(Supplier<@Nullable T> step, T otherwise) {
        try {
            T result = step.get();
            return result != null ? result : otherwise;
        }
        catch (Throwable ex) {
            failed(ex);
            return otherwise;
        }
    }

    private void guarded(Runnable step) {
        try {
            step.run();
        }
        catch (Throwable ex) {
            failed(ex);
        }
    }

    private void failed(Throwable ex) {
        // like a LockLostListener's, even an Error: the call goes on as if nobody were observing it
        log.error("LockObserver {} failed; the locked call goes on", observer, ex);
    }
}
