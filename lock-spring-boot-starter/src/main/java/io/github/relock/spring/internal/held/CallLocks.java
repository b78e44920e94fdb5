package io.github.relock.spring.internal.held;

import java.util.ArrayList;
import java.util.List;

import io.github.relock.core.HeldLock;
import io.github.relock.core.MultiLock;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * The locks of one running {@code @DistributedLock} call, as {@link io.github.relock.spring.CurrentLock} shows
 * them: the annotation's lock name and the call's lock handle (one lock, or a multi-lock for several keys). Kept
 * by {@link ThreadLockScope} for calls on a thread and in the Reactor {@code Context} for reactive calls; read
 * without a Redis round trip.
 */
public final class CallLocks {

    /** The Reactor {@code Context} key under which a reactive call's chain finds its {@code CallLocks}. */
    public static final String CONTEXT_KEY = "io.github.relock.spring.call-locks";

    private final String name;
    private final ReentrantDistributedLock lock;

    public CallLocks(String name, ReentrantDistributedLock lock) {
        this.name = name;
        this.lock = lock;
    }

    /** The lock name of the annotation (before the key is appended). */
    public String name() {
        return name;
    }

    ReentrantDistributedLock lock() {
        return lock;
    }

    /** One handle per lock of the call: several for a multi-key call. */
    List<ReentrantDistributedLock> members() {
        return lock instanceof MultiLock multi ? multi.locks() : List.of(lock);
    }

    /** Whether the call holds a lock of this name. */
    boolean holds(String lockName) {
        return members().stream().anyMatch(member -> member.getName().equals(lockName));
    }

    /** The call's lock names, one per key. */
    public List<String> lockNames() {
        return members().stream().map(ReentrantDistributedLock::getName).toList();
    }

    /**
     * The hold of the call's only lock.
     *
     * @throws IllegalStateException if the call holds several (a multi-key call), or the client no longer knows
     *                               the hold
     */
    public HeldLock only() {
        List<ReentrantDistributedLock> members = members();
        if (members.size() > 1) {
            throw new IllegalStateException("The current @DistributedLock call holds " + members.size() + " locks "
                    + lockNames() + "; pick one with CurrentLock.get(key), passing one of its keys");
        }
        return hold(members.get(0));
    }

    /**
     * The hold of the call's lock for {@code key}: the value a key expression gave ({@code 42} for the lock
     * {@code payments:42}), or the whole lock name.
     *
     * @throws IllegalStateException if the call holds no lock for that key
     */
    public HeldLock forKey(String key) {
        for (ReentrantDistributedLock member : members()) {
            String lockName = member.getName();
            if (lockName.equals(key) || lockName.equals(name + ':' + key)) {
                return hold(member);
            }
        }
        throw new IllegalStateException("The current @DistributedLock call holds no lock for key '" + key + "': it "
                + "holds " + lockNames() + "; pass a value its key expressions gave, or one of these names");
    }

    /** Every lock of the call that this client knows is lost, by name. */
    public List<String> lost() {
        List<String> lost = new ArrayList<>();
        for (ReentrantDistributedLock member : members()) {
            if (member.isLost()) {
                lost.add(member.getName());
            }
        }
        return lost;
    }

    private static HeldLock hold(ReentrantDistributedLock member) {
        return member.currentHold().orElseThrow(() -> new IllegalStateException("Lock '" + member.getName()
                + "' of the current @DistributedLock call is no longer known to this client: it was lost, and "
                + "the loss has been reported"));
    }
}
