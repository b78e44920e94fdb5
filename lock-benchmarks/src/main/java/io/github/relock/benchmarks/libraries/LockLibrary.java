package io.github.relock.benchmarks.libraries;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * One lock library under test. Every workload talks to libraries only through this interface, so all
 * of them run exactly the same loop.
 */
public interface LockLibrary {

    /** Short id used in flags and the table, e.g. {@code relock}. */
    String id();

    /** What is measured, e.g. {@code Redisson 4.7.0 RLock}. */
    String description();

    /**
     * A new, independent client: its own connections and its own client id, as a separate process would
     * have.
     *
     * @param watchdogTimeout null: the library's defaults; otherwise the lease that its watchdog keeps
     *                        renewing for locks taken without one (the watchdog workload)
     */
    LockClient connect(RedisTarget target, @Nullable Duration watchdogTimeout);

    /** Whether {@code lock()} without a lease is kept alive by the library itself. */
    default boolean hasWatchdog() {
        return true;
    }

    /** Why {@link #hasWatchdog()} is false, for the report. */
    default String noWatchdogReason() {
        return "";
    }

    /**
     * Whether its clients hand out read-write and fair locks ({@link LockClient#readLock},
     * {@link LockClient#writeLock}, {@link LockClient#fairLock}); W5 and W6 skip a library that does not.
     */
    default boolean hasLockKinds() {
        return false;
    }

    /** Why {@link #hasLockKinds()} is false, for the report. */
    default String noLockKindsReason() {
        return id() + " has no read-write or fair lock";
    }

    /** Whether its clients take locks without blocking a thread ({@link LockClient#asyncLock}); S2 skips a library that does not. */
    default boolean hasAsyncLocks() {
        return false;
    }

    /** Whether {@link #connect} can be pointed at a Redis Cluster ({@link RedisTarget#isCluster()}); S4 runs only those. */
    default boolean supportsCluster() {
        return false;
    }

    /** The Redis key of lock {@code name}, for its Cluster slot (S4); null if not known. */
    default @Nullable String lockKey(String name) {
        return null;
    }

    /** A client of one library: thread-safe, hands out lock handles. */
    interface LockClient extends AutoCloseable {

        /** A handle on the lock {@code name}; workloads fetch it once per thread and reuse it. */
        BenchLock lock(String name);

        /** The shared side of the read-write lock {@code name}; only if the library {@link LockLibrary#hasLockKinds()}. */
        default BenchLock readLock(String name) {
            throw unsupported("read-write");
        }

        /** The exclusive side of the read-write lock {@code name}. */
        default BenchLock writeLock(String name) {
            throw unsupported("read-write");
        }

        /** The first-come, first-served lock {@code name}. */
        default BenchLock fairLock(String name) {
            throw unsupported("fair");
        }

        /**
         * A handle on the lock {@code name} for a new owner of its own, whose calls complete without blocking a
         * thread; only if the library {@link LockLibrary#hasAsyncLocks()}.
         */
        default AsyncLock asyncLock(String name) {
            throw new UnsupportedOperationException("this library has no asynchronous lock: S2 runs only libraries "
                    + "whose hasAsyncLocks() is true");
        }

        @Override
        void close();

        private UnsupportedOperationException unsupported(String kind) {
            return new UnsupportedOperationException("this library has no " + kind
                    + " lock: W5 and W6 run only libraries whose hasLockKinds() is true");
        }
    }

    /** The two calls the workloads make; ownership is the calling thread's, as with {@code java.util.concurrent.locks.Lock}. */
    interface BenchLock {

        /** Waits as long as it takes; no lease, so a library with a watchdog keeps the lock alive. */
        void lock();

        void unlock();

        /** The library's own {@link java.util.concurrent.locks.Lock}, driven through {@code lock()}/{@code unlock()}. */
        static BenchLock of(java.util.concurrent.locks.Lock lock) {
            return new BenchLock() {
                @Override
                public void lock() {
                    lock.lock();
                }

                @Override
                public void unlock() {
                    lock.unlock();
                }
            };
        }
    }

    /** One owner's non-blocking calls on one lock: each handle is a distinct holder. */
    interface AsyncLock {

        /** Completes with true once held, with false if {@code wait} passed first; the hold ends after {@code lease}. */
        CompletionStage<Boolean> tryLock(Duration wait, Duration lease);

        /** Gives the hold back. */
        CompletionStage<Void> unlock();
    }
}
