package io.github.relock.spring.internal.held;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.ReentrantDistributedLock;

/**
 * The locks that {@code @DistributedLock} calls running on this thread hold right now, innermost first: what
 * {@link io.github.relock.spring.CurrentLock} shows, what a transaction committing inside such a call checks for
 * a loss, and what a nested call that would wait for its own thread is refused by. Threads only ever see their
 * own entries.
 */
public final class ThreadLockScope {

    private static final ThreadLocal<Deque<Entry>> CALLS = new ThreadLocal<>();

    /** Who owns the locks of a call on this thread. */
    private enum Owner {
        /** The thread itself. */
        THREAD,
        /** The future of a method returning a CompletionStage, whose body runs here now. */
        FUTURE,
        /** Such a future, with a read hold: nested readers need not wait for it. */
        FUTURE_READING
    }

    private record Entry(CallLocks call, Owner owner) {
    }

    private ThreadLockScope() {
    }

    public static void enter(String name, ReentrantDistributedLock lock) {
        push(new Entry(new CallLocks(name, lock), Owner.THREAD));
    }

    /** The body of a method returning a CompletionStage starts on this thread; its future owns {@code lock}. */
    public static void enterFutureBody(String name, ReentrantDistributedLock lock, boolean reading) {
        push(new Entry(new CallLocks(name, lock), reading ? Owner.FUTURE_READING : Owner.FUTURE));
    }

    /** The call that holds {@code lock} left this thread (returned, threw, or handed its body's rest to a future). */
    public static void exit(ReentrantDistributedLock lock) {
        Deque<Entry> calls = CALLS.get();
        if (calls == null) {
            return;
        }
        for (Iterator<Entry> it = calls.iterator(); it.hasNext();) {
            if (it.next().call().lock() == lock) {
                it.remove();
                break;
            }
        }
        if (calls.isEmpty()) {
            CALLS.remove(); // pooled threads keep nothing between tasks
        }
    }

    private static void push(Entry entry) {
        Deque<Entry> calls = CALLS.get();
        if (calls == null) {
            calls = new ArrayDeque<>();
            CALLS.set(calls);
        }
        calls.push(entry);
    }

    /** The innermost {@code @DistributedLock} call running on this thread, or null; no Redis call. */
    public static @Nullable CallLocks innermost() {
        Deque<Entry> calls = CALLS.get();
        Entry entry = calls != null ? calls.peek() : null;
        return entry != null ? entry.call() : null;
    }

    /**
     * The first of {@code names} that a {@code @DistributedLock} call running on this thread holds, either as
     * this thread's or (not as a read) as its future's, or null; no Redis call.
     */
    public static @Nullable String firstHeld(List<String> names) {
        return first(names, owner -> owner != Owner.FUTURE_READING);
    }

    /** The first of {@code names} that the body of a call returning a CompletionStage, on this thread, holds for its future (not as a read). */
    public static @Nullable String firstHeldForAFuture(List<String> names) {
        return first(names, owner -> owner == Owner.FUTURE);
    }

    private static @Nullable String first(List<String> names, Predicate<Owner> owners) {
        Deque<Entry> calls = CALLS.get();
        if (calls == null) {
            return null;
        }
        for (String name : names) {
            for (Entry entry : calls) {
                if (owners.test(entry.owner()) && entry.call().holds(name)) {
                    return name;
                }
            }
        }
        return null;
    }

    /** A lock held by a {@code @DistributedLock} call of this thread (not a future's) that this client knows is lost. */
    public static @Nullable ReentrantDistributedLock firstLost() {
        Deque<Entry> calls = CALLS.get();
        if (calls == null) {
            return null; // commits on threads outside any locked call cost one lookup
        }
        for (Entry entry : calls) {
            if (entry.owner() == Owner.THREAD && entry.call().lock().isLost()) {
                return entry.call().lock();
            }
        }
        return null;
    }
}
