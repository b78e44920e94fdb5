package io.github.relock.core.internal.lock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import io.github.relock.core.internal.redis.AsyncScripts;

/**
 * How a blocking call waits for the asynchronous operation it started: to the end, since the operation may
 * already have changed the lock in Redis and the caller must learn its outcome. An interrupt does not cut the
 * wait short; its status is kept for the caller. The operation's own failure is thrown as it is.
 */
public final class Waits {

    private Waits() {
    }

    /**
     * The outcome of {@code operation}, once it ended. Every operation ends within Redis's command timeout (its
     * round trips are timed out by the driver), so this never waits without bound.
     *
     * @throws IllegalStateException on a thread of the driver's event loops, which reads the replies waited for
     */
    public static <T> T await(CompletableFuture<T> operation) {
        if (!operation.isDone()) {
            AsyncScripts.refuseDriverThread();
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return operation.get();
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
                catch (ExecutionException ex) {
                    throw rethrown(ex.getCause() != null ? ex.getCause() : ex);
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@code failure} as thrown by a blocking call: the cause of a future's wrapper, unchecked as it was. */
    public static RuntimeException rethrown(Throwable failure) {
        Throwable cause = unwrapped(failure);
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new CompletionException(cause);
    }

    /** What failed inside the wrappers a future chain adds. */
    public static Throwable unwrapped(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
