package io.github.relock.core.internal.command;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;

/** Words for a failed Redis call that say whether Redis answered with an error or did not answer at all. */
public final class RedisFailures {

    /** How deep to look for the error reply among the causes: wrappers are few, and a cycle must not spin. */
    private static final int MAX_CAUSES = 16;

    private RedisFailures() {
    }

    /**
     * "Redis refused it: OOM command not allowed…" for an error reply, "Redis did not answer: …" for a
     * timeout or a lost connection; the driver's own wrapper text ("Error in execution") says neither.
     */
    public static String describe(DataAccessException ex) {
        String detail = NestedExceptionUtils.getMostSpecificCause(ex).getMessage();
        String what = refused(ex) ? "Redis refused it" : "Redis did not answer";
        return (detail != null) ? what + ": " + detail : what;
    }

    /**
     * Whether Redis may or may not have run the command that failed so: no reply came (a timeout, a lost
     * connection), so sending it again, or undoing what it may have done, is the caller's to decide.
     */
    public static boolean outcomeUnknown(DataAccessException ex) {
        return ex instanceof QueryTimeoutException || ex instanceof RedisConnectionFailureException;
    }

    /** Whether Redis answered with an error, rather than not at all (a timeout, a lost or refused connection). */
    public static boolean refused(DataAccessException ex) {
        // Lettuce's error reply (OOM, NOPERM, READONLY…) only: Spring also wraps "Connection closed" in RedisSystemException
        Throwable cause = ex;
        for (int depth = 0; cause != null && depth < MAX_CAUSES; depth++, cause = cause.getCause()) {
            if (cause instanceof RedisConnectionFailureException || cause instanceof RedisConnectionException) {
                return false; // an error while connecting (maxclients, LOADING) passes: the next attempt may connect
            }
            if (cause instanceof RedisCommandExecutionException) {
                return true;
            }
        }
        return false;
    }
}
