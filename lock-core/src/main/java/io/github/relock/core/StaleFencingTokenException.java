package io.github.relock.core;

/**
 * A write fenced by a lock's {@linkplain ReentrantDistributedLock#fencingToken() fencing token} was refused: the
 * record already carries a token at least as high, so a later holder of the lock has written it since this one's
 * hold began (this hold outlived its lease, in a pause or a partition), or the record does not exist. Nothing was
 * written; roll back what this holder did under the lock.
 */
public class StaleFencingTokenException extends DistributedLockException {

    private static final long serialVersionUID = 1L;

    private final long token;
    private final String table;
    private final transient Object id;

    /**
     * @param token   the token the write offered
     * @param table   where the record lives (a table, for a database)
     * @param id      the record's id
     * @param message what was refused, and why
     */
    public StaleFencingTokenException(long token, String table, Object id, String message) {
        super(message, null);
        this.token = token;
        this.table = table;
        this.id = id;
    }

    /** The fencing token the refused write offered. */
    public long getToken() {
        return token;
    }

    /** Where the record lives: the table, for a database. */
    public String getTable() {
        return table;
    }

    /** The id of the record that was not written. */
    public Object getId() {
        return id;
    }
}
