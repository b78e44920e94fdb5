package io.github.relock.core.internal.wait;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.relock.core.internal.hold.HoldId;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.LockKeys;

/**
 * One owner's calls on one lock, one at a time in this client. Each call reads the owner's hold before
 * its round trip (whether it re-enters, how many holds it gives back); two calls of one owner at once (an
 * explicit owner on two threads, or two asynchronous calls) would both read the same count and then
 * write over each other's hold. A call that must wait is queued behind the one before it, with no thread
 * held meanwhile. Calls of different owners, or on different locks, never wait here.
 */
public final class OwnerTurns {

    /** Per lock and explicit owner: the end of the last call queued, removed by that call when it ends. */
    private final ConcurrentHashMap<HoldId, CompletableFuture<Void>> lastCalls = new ConcurrentHashMap<>();

    /**
     * Starts {@code call} once no other call of {@code holder} on {@code keys} runs, and returns its outcome. A
     * thread makes one call at a time anyway, so a thread's call starts at once, with nothing to look up. What
     * {@code call} throws fails the result.
     */
    public <T> CompletableFuture<T> take(LockKeys keys, Holder holder, Supplier<CompletableFuture<T>> call) {
        if (holder.thread() != null) {
            return start(call);
        }
        HoldId id = new HoldId(keys, holder.id());
        CompletableFuture<Void> ended = new CompletableFuture<>();
        CompletableFuture<Void> before = lastCalls.put(id, ended);
        CompletableFuture<T> result = new CompletableFuture<>();
        Runnable run = () -> start(call).whenComplete((value, failure) -> {
            lastCalls.remove(id, ended);
            ended.complete(null); // the next call starts here, having seen what this one wrote
            if (failure != null) {
                result.completeExceptionally(failure);
            }
            else {
                result.complete(value);
            }
        });
        if (before == null) {
            run.run();
        }
        else {
            before.whenComplete((unused, failure) -> run.run());
        }
        return result;
    }

    private static <T> CompletableFuture<T> start(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        }
        catch (Throwable ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }
}
