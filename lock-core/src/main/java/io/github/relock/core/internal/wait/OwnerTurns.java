package io.github.relock.core.internal.wait;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.github.relock.core.internal.hold.HoldId;
import io.github.relock.core.internal.hold.Holder;
import io.github.relock.core.internal.kind.LockKeys;

/**
 * One owner's calls on one lock, one at a time in this client. Each call reads the owner's hold before
 * its round trip (whether it re-enters, how many holds it gives back); two calls of one owner at once (an
 * explicit owner on two threads, or two asynchronous calls) would both read the same count and then
 * write over each other's hold. Calls of different owners, or on different locks, never wait here.
 */
public final class OwnerTurns {

    private static final class Turn {
        final ReentrantLock lock = new ReentrantLock(); // not a monitor: a virtual thread waiting here does not pin
        int users;
    }

    private final ConcurrentHashMap<HoldId, Turn> turns = new ConcurrentHashMap<>();

    /**
     * Runs {@code call} once no other call of {@code holder} on {@code keys} runs. A thread makes one call at a
     * time anyway, so a thread's call runs at once, with nothing to look up.
     */
    public <T> T take(LockKeys keys, Holder holder, Supplier<T> call) {
        if (holder.thread() != null) {
            return call.get();
        }
        HoldId id = new HoldId(keys, holder.id());
        Turn turn = turns.compute(id, (key, existing) -> {
            Turn used = existing != null ? existing : new Turn();
            used.users++;
            return used;
        });
        turn.lock.lock();
        try {
            return call.get();
        }
        finally {
            turn.lock.unlock();
            turns.computeIfPresent(id, (key, used) -> --used.users == 0 ? null : used);
        }
    }
}
