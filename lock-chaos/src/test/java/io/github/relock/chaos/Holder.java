package io.github.relock.chaos;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * Who is inside a critical section, as the granting client reports it through its public API: owner id,
 * Redis key and fencing token. Sections of one hold share it; the first time the holder learns that it lost
 * the lock is reported once.
 */
final class Holder {

    final int jvm;
    final String client;
    final String owner;
    final String key;
    final String name;
    final long token;
    final String holdId;
    private final RedisLockClient granter;
    private volatile boolean told;
    private volatile boolean lapsed;

    Holder(int jvm, RedisLockClient granter, String owner, String key, String name, long token, String holdId) {
        this.jvm = jvm;
        this.granter = granter;
        this.client = granter.getClientId();
        this.owner = owner;
        this.key = key;
        this.name = name;
        this.token = token;
        this.holdId = holdId;
    }

    /** The holder of a programmatic lock that was just acquired: the explicit owner, or the calling thread. */
    static Holder programmatic(int jvm, RedisLockClient client, ReentrantDistributedLock lock, LockOwner owner) {
        long token;
        try {
            token = lock.fencingToken();
        }
        catch (IllegalMonitorStateException ex) {
            token = -1; // lost between the acquisition and this question
        }
        String ownerId = owner != null ? owner.id() : client.heldLocks().stream()
                .filter(held -> held.name().equals(lock.getName()))
                .filter(held -> Thread.currentThread().getName().equals(held.ownerThread()))
                .map(HeldLock::ownerId).findFirst().orElse("unknown-" + Thread.currentThread().getName());
        return new Holder(jvm, client, ownerId, lock.getKey(), lock.getName(), token, Ids.hold(jvm));
    }

    /**
     * The holder of an annotated method's lock, found among the client's held locks: the one of this caller
     * ({@code mine}) under the name the annotation documents ({@code name:key}), or failing that (should a fix
     * change the naming) one whose name contains the key; the newest of those, since a body whose lock was
     * taken over is still registered until it ends. Null if there is none.
     */
    static Holder annotated(int jvm, RedisLockClient client, String expectedName, String key,
            Predicate<HeldLock> mine, String holdId) {
        List<HeldLock> candidates = client.heldLocks().stream().filter(mine).toList();
        HeldLock held = newest(candidates, h -> h.name().equals(expectedName));
        if (held == null) {
            held = newest(candidates, h -> h.name().contains(key));
        }
        if (held == null) {
            return null;
        }
        return new Holder(jvm, client, held.ownerId(), held.key(), held.name(), held.fencingToken(), holdId);
    }

    private static HeldLock newest(List<HeldLock> candidates, Predicate<HeldLock> filter) {
        return candidates.stream().filter(filter).max(Comparator.comparing(HeldLock::acquiredAt)).orElse(null);
    }

    /** A body that found no hold of its own: it is inside the lock under the documented name, owner unknown. */
    static Holder unidentified(int jvm, RedisLockClient client, String expectedName, String holdId) {
        return new Holder(jvm, client, "unknown-" + holdId, client.getLock(expectedName).getKey(), expectedName, -1,
                holdId);
    }

    /** Reports, once per hold, that the holder learned it lost the lock ({@code how}: isLost, exception). */
    void tell(String how) {
        if (!told) {
            told = true;
            Out.emit(new Ev.Told(jvm, owner, key, token, System.nanoTime(), how, holdId));
        }
    }

    /**
     * Reports, once per hold, a watchdog lease that its own client shows as ended while the holder is inside
     * (a diagnosis for the minimal history: the watchdog stopped renewing it).
     */
    void checkLease() {
        if (lapsed) {
            return;
        }
        Instant now = Instant.now();
        for (HeldLock held : granter.heldLocks()) {
            if (held.watchdog() && held.ownerId().equals(owner) && held.key().equals(key)
                    && held.leaseExpiresAt().isBefore(now)) {
                lapsed = true;
                Out.emit(new Ev.Lapsed(jvm, holdId, System.nanoTime(),
                        Duration.between(held.leaseExpiresAt(), now).toMillis()));
            }
        }
    }

    /** The hold's token goes to the fenced resource: what a holder does when it commits its work. */
    void write() {
        if (token > 0) {
            Out.emit(new Ev.Write(key, holdId, token, System.nanoTime()));
        }
    }

    /** Reports one section of this hold. */
    void section(long leaseMillis, long invoke, long enter, long exit, int depth, String kind, String end,
            String opId) {
        Out.emit(new Ev.Section(jvm, client, owner, key, token, leaseMillis, invoke, enter, exit, depth, kind, holdId,
                end, opId));
    }
}
