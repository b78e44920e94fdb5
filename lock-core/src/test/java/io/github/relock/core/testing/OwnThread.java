package io.github.relock.core.testing;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Runs a blocking call on a new thread of its own: {@code supplyAsync} may start it 100 ms or more late on a
 * two-core machine (seen on JDK 25), which a test that measures the call from before it started would count.
 */
public final class OwnThread {

    private OwnThread() {
    }

    public static <T> CompletableFuture<T> supply(Supplier<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(call.get());
            }
            catch (Throwable ex) {
                result.completeExceptionally(ex);
            }
        }, "own-thread-call");
        thread.setDaemon(true);
        thread.start();
        return result;
    }
}
