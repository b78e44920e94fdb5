package io.github.relock.core.internal.wait;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The opening of a pub/sub connection under way, which every caller that needs the connection meanwhile waits for,
 * and which a close fails at once: one future, started and ended under its connection's lock.
 */
final class OpeningUnderWay<T> {

    /** The connection's lock: guards {@link #future} together with what the connection decides with it. */
    private final ReentrantLock lock;
    /** null: no opening under way. */
    private @Nullable CompletableFuture<T> future;

    /** @param lock the connection's lock, held for no call to Redis */
    OpeningUnderWay(ReentrantLock lock) {
        this.lock = lock;
    }

    /** The opening under way, null if none; the caller holds the lock. */
    @Nullable CompletableFuture<T> get() {
        assert lock.isHeldByCurrentThread();
        return future;
    }

    /** {@code started} is the opening under way from now on; the caller holds the lock. */
    void start(CompletableFuture<T> started) {
        assert lock.isHeldByCurrentThread();
        future = started;
    }

    /** The opening ended (its future completes next): the next caller that needs a connection starts another. */
    void ended() {
        lock.lock();
        try {
            future = null;
        }
        finally {
            lock.unlock();
        }
    }

    /** The callers waiting for the opening under way, if any, fail with {@code why} now, not when it gives up. */
    void fail(RuntimeException why) {
        CompletableFuture<T> shared;
        lock.lock();
        try {
            shared = future;
        }
        finally {
            lock.unlock();
        }
        if (shared != null) {
            shared.completeExceptionally(why);
        }
    }
}
