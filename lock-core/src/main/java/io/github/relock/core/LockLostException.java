package io.github.relock.core;

/**
 * The owner held the lock, but no longer does: its lease ran out or it was force-unlocked. Work done
 * under the lock may have overlapped with another holder's.
 */
public class LockLostException extends IllegalMonitorStateException {

    private static final long serialVersionUID = 1L;

    private final String lockName;

    public LockLostException(String lockName, String message) {
        super(message);
        this.lockName = lockName;
    }

    /** The name of the lost lock. */
    public String getLockName() {
        return lockName;
    }
}
