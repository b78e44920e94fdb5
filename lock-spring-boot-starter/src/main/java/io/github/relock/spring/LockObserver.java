package io.github.relock.spring;

import org.jspecify.annotations.Nullable;

/**
 * Hears about each {@code @DistributedLock} call's acquisition and hold, for metrics and tracing. The
 * starter plugs in Micrometer Observation when it is on the class path, and meters when there is a
 * {@code MeterRegistry}; every {@code LockObserver} bean is told.
 * {@link #NOOP} when there is none.
 * Implementations see the logical lock name only, never the resolved key, so tags stay low-cardinality.
 */
public interface LockObserver {

    /** Observes nothing. */
    LockObserver NOOP = lockName -> Acquisition.NOOP;

    /** A call starts waiting for the locks of {@code lockName}. */
    Acquisition acquisitionStarted(String lockName);

    /** One acquisition; exactly one of its methods is called. */
    interface Acquisition {

        Acquisition NOOP = new Acquisition() {
            @Override
            public Hold acquired() {
                return error -> {
                };
            }

            @Override
            public void notAcquired() {
            }

            @Override
            public void failed(Throwable error) {
            }
        };

        /** All locks were taken; the returned hold ends when they are released. */
        Hold acquired();

        /** The wait time ran out. */
        void notAcquired();

        /** Redis failed or the wait was interrupted. */
        void failed(Throwable error);
    }

    /** The time a call holds its locks. */
    @FunctionalInterface
    interface Hold {

        /** The locks were released; {@code error} is what the method threw or the lost lock, if any. */
        void released(@Nullable Throwable error);
    }
}
