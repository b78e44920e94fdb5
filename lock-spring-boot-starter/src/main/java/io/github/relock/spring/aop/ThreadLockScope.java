package io.github.relock.spring.aop;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.MultiLock;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * The locks that {@code @DistributedLock} calls on this thread hold right now, so that a transaction
 * committing inside such a call can check that none was lost. Threads only ever see their own entries.
 */
public final class ThreadLockScope {

    private static final ThreadLocal<Deque<ReentrantDistributedLock>> LOCKS = new ThreadLocal<>();

    private ThreadLockScope() {
    }

    static void enter(ReentrantDistributedLock lock) {
        Deque<ReentrantDistributedLock> locks = LOCKS.get();
        if (locks == null) {
            locks = new ArrayDeque<>();
            LOCKS.set(locks);
        }
        locks.push(lock);
    }

    static void exit(ReentrantDistributedLock lock) {
        Deque<ReentrantDistributedLock> locks = LOCKS.get();
        if (locks != null) {
            locks.remove(lock);
            if (locks.isEmpty()) {
                LOCKS.remove(); // pooled threads keep nothing between tasks
            }
        }
    }

    /** Whether a {@code @DistributedLock} call on this thread holds the lock called {@code name}; no Redis call. */
    static boolean holds(String name) {
        Deque<ReentrantDistributedLock> locks = LOCKS.get();
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
