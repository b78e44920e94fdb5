package io.github.relock.core;

/**
 * The lock is held as the other kind: a fair lock was asked for while a plain lock of the same name is held, or
 * the other way round. The two kinds keep their state apart in Redis and would not exclude each other, so the
 * attempt is refused instead of letting both in. This happens when instances disagree on whether a lock is fair
 * (a configuration change rolling out); every instance must take a lock name as the same kind.
 *
 * <p>Only a first acquisition checks: a re-entry of a hold already taken goes on as before. Nothing of the
 * refused attempt stays in Redis.
 */
public class LockKindMismatchException extends DistributedLockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param lockName the name of the lock that was asked for
     * @param message  which kind holds the lock and which was asked for
     */
    public LockKindMismatchException(String lockName, String message) {
        super(lockName, null, message, null);
    }
}
