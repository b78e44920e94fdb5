package io.github.relock.core;

/**
 * Redis did not answer a lock operation (unreachable, timed out, or refused the command). Whether the
 * operation took effect is unknown; a lock taken this way expires with its lease.
 */
public class LockOperationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String lockName;

    public LockOperationException(String lockName, String message, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
    }

    /** The name of the lock the operation was for. */
    public String getLockName() {
        return lockName;
    }
}
