package io.github.relock.spring.aop;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.MultiLock;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * The locks that {@code @DistributedLock} calls on this thread hold right now, so that a transaction
 * committing inside such a call can check that none was lost. Threads only ever see their own entries.
 */
public final class ThreadLockScope {

    private static final ThreadLocal<Deque<ReentrantDistributedLock>> LOCKS = new ThreadLocal<>();
    /** Locks held by a future's owner (a method returning a CompletionStage) while its body runs on this thread. */
    private static final ThreadLocal<Deque<ReentrantDistributedLock>> FUTURE_LOCKS = new ThreadLocal<>();

    private ThreadLockScope() {
    }

    static void enter(ReentrantDistributedLock lock) {
        push(LOCKS, lock);
    }

    static void exit(ReentrantDistributedLock lock) {
        remove(LOCKS, lock);
    }

    /** The body of a method returning a CompletionStage starts on this thread; its future owns {@code lock}. */
    static void enterFutureBody(ReentrantDistributedLock lock) {
        push(FUTURE_LOCKS, lock);
    }

    static void exitFutureBody(ReentrantDistributedLock lock) {
        remove(FUTURE_LOCKS, lock);
    }

    private static void push(ThreadLocal<Deque<ReentrantDistributedLock>> scope, ReentrantDistributedLock lock) {
        Deque<ReentrantDistributedLock> locks = scope.get();
        if (locks == null) {
            locks = new ArrayDeque<>();
            scope.set(locks);
        }
        locks.push(lock);
    }

    private static void remove(ThreadLocal<Deque<ReentrantDistributedLock>> scope, ReentrantDistributedLock lock) {
        Deque<ReentrantDistributedLock> locks = scope.get();
        if (locks != null) {
            locks.remove(lock);
            if (locks.isEmpty()) {
                scope.remove(); // pooled threads keep nothing between tasks
            }
        }
    }

    /**
     * The first of {@code names} that a {@code @DistributedLock} call running on this thread holds, either as
     * this thread's or as its future's, or null; no Redis call.
     */
    static @Nullable String firstHeld(List<String> names) {
        return first(names, name -> holds(LOCKS, name) || holds(FUTURE_LOCKS, name));
    }

    /** The first of {@code names} that the body of a call returning a CompletionStage, on this thread, holds for its future. */
    static @Nullable String firstHeldForAFuture(List<String> names) {
        return first(names, name -> holds(FUTURE_LOCKS, name));
    }

    private static @Nullable String first(List<String> names, Predicate<String> held) {
        for (String name : names) {
            if (held.test(name)) {
                return name;
            }
        }
        return null;
    }

    private static boolean holds(ThreadLocal<Deque<ReentrantDistributedLock>> scope, String name) {
        Deque<ReentrantDistributedLock> locks = scope.get();
        if (locks == null) {
            return false;
        }
        for (ReentrantDistributedLock lock : locks) {
            List<ReentrantDistributedLock> members = lock instanceof MultiLock multi ? multi.locks() : List.of(lock);
            if (members.stream().anyMatch(member -> member.getName().equals(name))) {
                return true;
            }
        }
        return false;
    }

    /** A lock held by a {@code @DistributedLock} call on this thread that this client knows is lost. */
    public static @Nullable ReentrantDistributedLock firstLost() {
        Deque<ReentrantDistributedLock> locks = LOCKS.get();
        if (locks == null) {
            return null; // commits on threads outside any locked call cost one lookup
        }
        for (ReentrantDistributedLock lock : locks) {
            if (lock.isLost()) {
                return lock;
            }
        }
        return null;
    }
}
