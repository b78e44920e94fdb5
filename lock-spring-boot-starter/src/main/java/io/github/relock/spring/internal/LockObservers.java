package io.github.relock.spring.internal;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.relock.spring.LockObserver;

/** Several {@link LockObserver}s told of the same calls, each through its own acquisition and hold. */
public final class LockObservers implements NeverThrowingLockObserver {

    private final List<LockObserver> observers;

    private LockObservers(List<LockObserver> observers) {
        // each guarded on its own: one that throws must not keep the next from hearing of the step
        this.observers = observers.stream().map(GuardedLockObserver::of).toList();
    }

    /** Tells every one of {@code observers}, in order: {@link LockObserver#NOOP} for none, the observer itself for one. */
    public static LockObserver of(List<LockObserver> observers) {
        return observers.isEmpty() ? NOOP : observers.size() == 1 ? observers.get(0) : new LockObservers(observers);
    }

    @Override
    public Acquisition acquisitionStarted(String lockName) {
        List<Acquisition> acquisitions = new ArrayList<>(observers.size());
        for (LockObserver observer : observers) {
            acquisitions.add(observer.acquisitionStarted(lockName));
        }
        return new Acquisition() {
            @Override
            public Hold acquired() {
                List<Hold> holds = new ArrayList<>(acquisitions.size());
                for (Acquisition acquisition : acquisitions) {
                    holds.add(acquisition.acquired());
                }
                return error -> released(holds, error);
            }

            @Override
            public void notAcquired() {
                acquisitions.forEach(Acquisition::notAcquired);
            }

            @Override
            public void failed(Throwable error) {
                acquisitions.forEach(acquisition -> acquisition.failed(error));
            }
        };
    }

    private static void released(List<Hold> holds, @Nullable Throwable error) {
        for (Hold hold : holds) {
            hold.released(error);
        }
    }
}
