package io.github.relock.benchmarks.libraries;

import java.time.Duration;

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

    /** A client of one library: thread-safe, hands out lock handles. */
    interface LockClient extends AutoCloseable {

        /** A handle on the lock {@code name}; workloads fetch it once per thread and reuse it. */
        BenchLock lock(String name);

        @Override
        void close();
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
}
