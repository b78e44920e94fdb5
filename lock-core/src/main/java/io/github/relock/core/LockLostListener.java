package io.github.relock.core;

/**
 * Told when the watchdog finds that a lock it was renewing is no longer held by its owner: the lease
 * ran out while Redis or the owner's process was unreachable, the key was deleted, or Redis lost its
 * data. From then on the owner must assume another process may hold the lock.
 *
 * <p>A loss the watchdog finds is told on a thread of the client's own, one event after another, so that a
 * listener that blocks holds up later events but not the renewal of other locks; a loss a call to Redis finds
 * (a release, a re-entry) or the owner sees first ({@code getHoldCount()} after its fixed lease ran out) is told on
 * the calling thread. Keep it short all the same.
 */
@FunctionalInterface
public interface LockLostListener {

    void lockLost(LockLostEvent event);
}
