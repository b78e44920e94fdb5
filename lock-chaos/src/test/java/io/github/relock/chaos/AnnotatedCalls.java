package io.github.relock.chaos;

import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.relock.core.LockLostException;
import io.github.relock.spring.LockNotAcquiredException;

/** Calls one annotated method through its proxy and records the call: how long it took, what came back. */
final class AnnotatedCalls {

    private AnnotatedCalls() {
    }

    /** Returns the future of an async call that got its lock, else null. */
    static CompletableFuture<Void> call(AnnotatedWork work, Call.Kind kind, String key, Call call) {
        String result = "acquired";
        CompletableFuture<Void> future = null;
        try {
            switch (kind) {
                case SYNC -> work.sync(key, call);
                case LEASED -> work.leased(key, call);
                case ASYNC -> future = work.async(key, call);
                default -> throw new IllegalArgumentException(kind.name());
            }
        }
        catch (LockNotAcquiredException ex) {
            result = "not-acquired";
        }
        catch (LockLostException ex) {
            result = "lost"; // after the body: the release found the lock gone
        }
        catch (RuntimeException ex) {
            result = "error:" + ex.getClass().getSimpleName();
        }
        long wait = kind == Call.Kind.ASYNC ? Timing.ANNOTATED_ASYNC_WAIT_MILLIS : Timing.ANNOTATED_WAIT_MILLIS;
        Out.emit(new Ev.Op(call.jvm(), call.opId(), "ANN_" + kind.name().toUpperCase(Locale.ROOT), work.redisKey(key),
                call.invoke(), System.nanoTime(), wait, result,
                call.parentHoldId() == null ? "-" : call.parentHoldId()));
        return future;
    }

    /** Waits for an async call's work; its outcome is in the history already, so failures are ignored here. */
    static void await(CompletableFuture<Void> future, long millis) {
        try {
            future.get(millis, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (Exception ex) {
            // lost, cancelled or late: the body and the release reported what happened
        }
    }
}
