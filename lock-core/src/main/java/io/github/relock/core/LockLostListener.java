package io.github.relock.core;

/**
 * Told when the watchdog finds that a lock it was renewing is no longer held by its owner: the lease
 * ran out while Redis or the owner's process was unreachable, the key was deleted, or Redis lost its
 * data. From then on the owner must assume another process may hold the lock.
 *
 * <p>Called on the client's watchdog thread: keep it short and do not block.
 */
@FunctionalInterface
public interface LockLostListener {

    void lockLost(LockLostEvent event);
}
