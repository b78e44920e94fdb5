package io.github.relock.spring.internal;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.spring.LockNotAcquiredException;
import io.github.relock.spring.LockObserver;
import io.github.relock.spring.internal.held.CallLocks;
import reactor.core.publisher.Mono;

/**
 * One subscription's hold on the lock of a reactive {@code @DistributedLock} method: taking it without
 * blocking, and giving it back exactly once however the subscription ends, even if it is cancelled just as
 * the lock was taken.
 */
final class ReactiveHold {

    private static final Logger log = LoggerFactory.getLogger(ReactiveHold.class);

    private final ReentrantDistributedLock lock;
    private final LockOwner owner;
    private final LockDefinition definition;
    private final LockObserver observer;
    private final CallLocks call;
    private final BooleanSupplier clientClosed;
    private final AtomicBoolean settled = new AtomicBoolean();
    /** True from the moment the lock is known taken until one release claims it: it is given back once. */
    private final AtomicBoolean held = new AtomicBoolean();
    private volatile LockObserver.@Nullable Hold observed;
    private volatile long started;
    private volatile Mono<Void> bodyStopped = Mono.empty();

    /**
     * @param clientClosed whether the lock client has closed: a publisher that completes after that was not
     *                     renewed to its end, and is told so
     */
    ReactiveHold(ReentrantDistributedLock lock, LockOwner owner, LockDefinition definition, LockObserver observer,
            BooleanSupplier clientClosed) {
        this.lock = lock;
        this.clientClosed = clientClosed;
        this.owner = owner;
        this.definition = definition;
        this.observer = observer;
        this.call = new CallLocks(definition.name(), lock);
    }

    /** The hold as the subscription's chain sees it ({@link io.github.relock.spring.CurrentLock#mono()}). */
    CallLocks call() {
        return call;
    }

    /**
     * Emits whether the lock was taken within the wait time. Cancelling it cancels the wait; the core then
     * gives back a lock taken in the race, and a {@code true} that arrives after the cancel is given back here.
     */
    Mono<Boolean> acquire() {
        return Mono.<Boolean>create(sink -> {
            LockObserver.Acquisition acquisition = observer.acquisitionStarted(definition.name());
            started = System.nanoTime();
            CompletableFuture<Boolean> attempt;
            try {
                attempt = lock.tryLockAsync(definition.settings(), owner);
            }
            catch (RuntimeException ex) {
                settle(acquisition, null, ex);
                sink.error(ex);
                return;
            }
            sink.onCancel(() -> {
                attempt.cancel(true);
                settle(acquisition, null, new CancellationException("The subscription was cancelled while waiting"));
            });
            attempt.whenComplete((acquired, error) -> {
                Throwable failure = error instanceof CompletionException ? error.getCause() : error;
                settle(acquisition, acquired, failure);
                if (Boolean.TRUE.equals(acquired)) {
                    held.set(true);
                }
                if (failure != null) {
                    sink.error(failure);
                }
                else {
                    sink.success(acquired);
                }
            });
        }).doOnDiscard(Boolean.class, acquired -> {
            if (acquired) { // taken, but the subscription was gone before it could hear of it
                release(null, Mode.CANCEL).subscribe();
            }
        });
    }

    /** Tells the observer how the acquisition ended, once. */
    private void settle(LockObserver.Acquisition acquisition, @Nullable Boolean acquired, @Nullable Throwable error) {
        if (!settled.compareAndSet(false, true)) {
            return;
        }
        if (Boolean.TRUE.equals(acquired)) {
            observed = acquisition.acquired();
        }
        else if (error != null) {
            acquisition.failed(error);
        }
        else {
            acquisition.notAcquired();
        }
    }

    LockNotAcquiredException notAcquiredException() {
        return new LockNotAcquiredException(lock.getName(), lock.getKey(), definition.settings().waitTime(),
                Duration.ofNanos(System.nanoTime() - started), null);
    }

    /** The publisher completed (after the lock was taken, if {@code acquired}): a release failure (or a lock lost meanwhile) becomes its error. */
    Mono<Void> releaseAfterSuccess(boolean acquired) {
        return acquired ? release(null, Mode.SUCCESS) : Mono.empty();
    }

    /** The publisher failed with {@code error}: a release failure rides along, suppressed. */
    Mono<Void> releaseAfterFailure(boolean acquired, Throwable error) {
        return acquired ? release(error, Mode.FAILURE) : Mono.empty();
    }

    /**
     * The subscriber cancelled. Reactor has cancelled the method's publisher before this runs, so the lock
     * goes once the cancel has gone all the way up the method's chain.
     */
    Mono<Void> releaseAfterCancel(boolean acquired) {
        return acquired ? release(null, Mode.CANCEL) : Mono.empty();
    }

    private enum Mode { SUCCESS, FAILURE, CANCEL }

    /** After a cancel, the lock waits for {@code stopped}: the body's own end, where Reactor's cancel does not wait for it. */
    void releaseAfterCancelWaitsFor(Mono<Void> stopped) {
        bodyStopped = stopped;
    }

    /**
     * The subscription ended, however it did: gives the lock back if no release claimed it. Reactor's
     * {@code usingWhen} can lose a resource that arrives just as the subscription is cancelled (seen about
     * once in 20,000 random cancels); this makes the release not depend on which of its hooks runs.
     */
    void releaseIfStillHeld() {
        release(null, Mode.CANCEL).subscribe(null, error -> { });
    }

    private Mono<Void> release(@Nullable Throwable failure, Mode mode) {
        return Mono.defer(() -> {
            if (!held.compareAndSet(true, false)) {
                return Mono.empty(); // given back already, or never taken
            }
            if (mode == Mode.SUCCESS && clientClosed.getAsBoolean()) {
                LockLostException closed = LockCall.closedUnder(lock, definition);
                LockObserver.Hold hold = observed;
                if (hold != null) {
                    hold.released(closed);
                }
                return Mono.error(closed);
            }
            boolean outlivedLease = mode == Mode.SUCCESS && lock.isLost(); // a lease the local clock saw end
            return mode == Mode.CANCEL ? bodyStopped.then(Mono.defer(() -> unlock(failure, mode, false)))
                    : unlock(failure, mode, outlivedLease);
        });
    }

    private Mono<Void> unlock(@Nullable Throwable failure, Mode mode, boolean outlivedLease) {
        CompletableFuture<Void> unlocked;
        try {
            unlocked = lock.unlockAsync(owner);
        }
        catch (RuntimeException ex) {
            unlocked = CompletableFuture.failedFuture(ex);
        }
        return Mono.fromFuture(unlocked.handle((ignored, error) -> {
            Throwable outcome = outcome(failure, mode, outlivedLease,
                    error instanceof CompletionException ? error.getCause() : error);
            LockObserver.Hold hold = observed;
            if (hold != null) {
                hold.released(mode == Mode.FAILURE ? failure : outcome);
            }
            if (outcome != null) {
                throw new CompletionException(outcome);
            }
            return null;
        }), true);
    }

    /** What the subscriber sees of the release: only the end of a completed publisher may turn into an error. */
    private @Nullable Throwable outcome(@Nullable Throwable failure, Mode mode, boolean outlivedLease,
            @Nullable Throwable error) {
        if (mode == Mode.FAILURE) {
            if (error != null && failure != null && error != failure) {
                failure.addSuppressed(error);
            }
            return null;
        }
        boolean lostOrGivenUp = error instanceof LockLostException || error instanceof IllegalMonitorStateException;
        if (lostOrGivenUp && mode == Mode.SUCCESS) {
            return error; // lost, or a hold an inner call gave up
        }
        if (error != null) {
            log.warn("Could not release a lock of {} after its publisher {}; it will be freed when its lease ends",
                    definition.describeMethod(), mode == Mode.SUCCESS ? "completed" : "was cancelled", error);
            return null;
        }
        return outlivedLease ? new LockLostException(lock.getName(), lock.getKey(), "Lock '" + lock.getName() + "' of "
                + definition.describeMethod() + " outlived its lease while the publisher ran; another holder may "
                + "have run meanwhile") : null;
    }
}
