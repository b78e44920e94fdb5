package io.github.relock.core.internal.hold;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.github.relock.core.internal.command.KeyNames;
import io.github.relock.core.internal.kind.LockKind;

/**
 * The holds of one client, keyed by lock and owner. It is also the watchdog's work list: taking a
 * hold out of here is what stops its renewal, so release removes it before the release script runs.
 */
public final class HoldRegistry implements LockKind.HeldHere {

    private final Map<HoldId, Hold> holds = new ConcurrentHashMap<>();
    /** Holds taken off the watchdog's list whose last release has not ended yet: still held in Redis. */
    private final Set<Hold> releasing = ConcurrentHashMap.newKeySet();

    public @Nullable Hold get(KeyNames keys, String ownerId) {
        return holds.get(new HoldId(keys, ownerId));
    }

    /** Still held as far as this client knows: registered, not lost, and not a fixed lease that ran out. */
    @Override
    public boolean heldHere(KeyNames keys, String field) {
        Hold hold = get(keys, field);
        return hold != null && !hold.lost() && !hold.fixedLeaseEnded();
    }

    public void put(Hold hold) {
        holds.put(new HoldId(hold.keys(), hold.ownerId()), hold);
    }

    /** Removes this very hold, not a newer one for the same lock and owner. */
    public boolean remove(Hold hold) {
        return holds.remove(new HoldId(hold.keys(), hold.ownerId()), hold);
    }

    /**
     * Takes {@code hold} off the watchdog's list for its last release, which is in flight until {@link #released}:
     * until then {@link #held} still lists it, so that whoever waits for the client's locks to be given back
     * (a shutdown) does not close the connections under the release.
     */
    public void removeForRelease(Hold hold) {
        releasing.add(hold); // first: a listing meanwhile finds it in one place or in both, never in neither
        if (!remove(hold)) {
            releasing.remove(hold); // not registered (ended meanwhile): nothing in flight to list
        }
    }

    /** The last release of {@code hold} ended, however it did. */
    public void released(Hold hold) {
        releasing.remove(hold);
    }

    /** Every hold the client has, those whose last release is in flight included, each once. */
    public Collection<Hold> held() {
        // the registered ones first: one on its way to releasing is then listed in both, and counted once
        Set<Hold> held = new LinkedHashSet<>(holds.values());
        held.addAll(releasing);
        return held;
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

    /**
     * The holds of lock {@code keys}, whoever owns them; with {@code everySide}, those of both sides of a read-write
     * lock (which share one hash).
     */
    public List<Hold> of(KeyNames keys, boolean everySide) {
        List<Hold> found = new ArrayList<>();
        for (Hold hold : holds.values()) {
            if (everySide ? Arrays.equals(hold.keys().lockBytes(), keys.lockBytes()) : hold.keys().equals(keys)) {
                found.add(hold);
            }
        }
        return found;
    }

    public Collection<Hold> all() {
        return List.copyOf(holds.values());
    }

    public void clear() {
        holds.clear();
        releasing.clear();
    }
}
