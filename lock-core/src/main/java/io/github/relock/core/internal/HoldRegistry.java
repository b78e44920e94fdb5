package io.github.relock.core.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * The holds of one client, keyed by lock and owner. It is also the watchdog's work list: taking a
 * hold out of here is what stops its renewal, so release removes it before the release script runs.
 */
public final class HoldRegistry {

    private final Map<HoldId, Hold> holds = new ConcurrentHashMap<>();

    public @Nullable Hold get(LockKeys keys, String ownerId) {
        return holds.get(new HoldId(keys, ownerId));
    }

    public void put(Hold hold) {
        holds.put(new HoldId(hold.keys(), hold.ownerId()), hold);
    }

    /** Removes this very hold, not a newer one for the same lock and owner. */
    public boolean remove(Hold hold) {
        return holds.remove(new HoldId(hold.keys(), hold.ownerId()), hold);
    }

    /** Holds the watchdog must renew now. */
    public List<Hold> renewable() {
        List<Hold> due = new ArrayList<>();
        for (Hold hold : holds.values()) {
            if (hold.watchdog() && !hold.lost()) {
                due.add(hold);
            }
        }
        return due;
    }

    /**
     * Forgets holds that ended unreleased before {@code cutoffNanos} (System.nanoTime): fixed leases that ran
     * out (taking a lock with a lease and letting it end is a pattern), and losses their owner has seen.
     */
    public void forgetEndedBefore(long cutoffNanos) {
        holds.values().removeIf(hold -> hold.forgettableBefore(cutoffNanos));
    }

    public Collection<Hold> all() {
        return List.copyOf(holds.values());
    }

    public void clear() {
        holds.clear();
    }
}
