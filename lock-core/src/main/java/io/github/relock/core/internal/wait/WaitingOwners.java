package io.github.relock.core.internal.wait;

import java.util.concurrent.ConcurrentHashMap;

import io.github.relock.core.internal.hold.HoldId;
import io.github.relock.core.internal.kind.LockKeys;

/**
 * Counts this client's threads waiting for a lock, per owner. An explicit {@code LockOwner} may wait on
 * several threads at once, and holds one place in a queue (a fair line, a writer's turn) for all of them:
 * only its last waiting thread to give up may take that place back.
 */
public final class WaitingOwners {

    private final ConcurrentHashMap<HoldId, Integer> waiting = new ConcurrentHashMap<>();
    /** The same, per lock, whatever the owner. */
    private final ConcurrentHashMap<String, Integer> perLock = new ConcurrentHashMap<>();

    /** A thread of {@code ownerId} starts waiting for {@code keys}. */
    public void arrive(LockKeys keys, String ownerId) {
        waiting.merge(new HoldId(keys, ownerId), 1, Integer::sum);
        perLock.merge(keys.lock(), 1, Integer::sum);
    }

    /** Whether any thread of this client, of whichever owner, waits for {@code keys}. */
    public boolean anyWaiting(LockKeys keys) {
        return perLock.containsKey(keys.lock());
    }

    /**
     * A thread of {@code ownerId} stops waiting for {@code keys}.
     *
     * @return whether no other thread of that owner still waits for it
     */
    public boolean leave(LockKeys keys, String ownerId) {
        boolean[] last = {true};
        // a thread that arrives right after the last one left may see its fresh place taken back; its next
        // attempt queues it again, as the newcomer it is
        boolean[] counted = {false};
        waiting.computeIfPresent(new HoldId(keys, ownerId), (id, count) -> {
            counted[0] = true;
            last[0] = count == 1;
            return last[0] ? null : count - 1;
        });
        if (counted[0]) {
            perLock.computeIfPresent(keys.lock(), (lock, count) -> count == 1 ? null : count - 1);
        }
        return last[0];
    }
}
