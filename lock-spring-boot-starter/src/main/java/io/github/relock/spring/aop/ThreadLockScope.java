package io.github.relock.spring.aop;

import java.util.ArrayDeque;
import java.util.Deque;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.ReentrantDistributedLock;

/**
 * The lock groups that {@code @DistributedLock} calls on this thread hold right now, so that a
 * transaction committing inside such a call can check that none was lost. Threads only ever see their
 * own entries.
 */
public final class ThreadLockScope {

    private static final ThreadLocal<Deque<LockGroup>> GROUPS = new ThreadLocal<>();

    private ThreadLockScope() {
    }

    static void enter(LockGroup group) {
        Deque<LockGroup> groups = GROUPS.get();
        if (groups == null) {
            groups = new ArrayDeque<>();
            GROUPS.set(groups);
        }
        groups.push(group);
    }

    static void exit(LockGroup group) {
        Deque<LockGroup> groups = GROUPS.get();
        if (groups != null) {
            groups.remove(group);
            if (groups.isEmpty()) {
                GROUPS.remove(); // pooled threads keep nothing between tasks
            }
        }
    }

    /** A lock held by a {@code @DistributedLock} call on this thread that this client knows is lost. */
    public static @Nullable ReentrantDistributedLock firstLost() {
        Deque<LockGroup> groups = GROUPS.get();
        if (groups == null) {
            return null; // commits on threads outside any locked call cost one lookup
        }
        for (LockGroup group : groups) {
            ReentrantDistributedLock lost = group.firstLost();
            if (lost != null) {
                return lost;
            }
        }
        return null;
    }
}
