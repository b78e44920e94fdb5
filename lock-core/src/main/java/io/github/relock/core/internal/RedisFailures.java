package io.github.relock.core.internal;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;

/** Words for a failed Redis call that say whether Redis answered with an error or did not answer at all. */
final class RedisFailures {

    private RedisFailures() {
    }

    /**
     * "Redis refused it: OOM command not allowed…" for an error reply, "Redis did not answer: …" for a
     * timeout or a lost connection; the driver's own wrapper text ("Error in execution") says neither.
     */
    static String describe(DataAccessException ex) {
        String detail = NestedExceptionUtils.getMostSpecificCause(ex).getMessage();
        String what = refused(ex) ? "Redis refused it" : "Redis did not answer";
        return (detail != null) ? what + ": " + detail : what;
    }

    /** Whether Redis answered with an error, rather than not at all (a timeout, a lost or refused connection). */
    static boolean refused(DataAccessException ex) {
        // spring-data-redis wraps error replies (OOM, READONLY, NOSCRIPT…) in RedisSystemException
        return ex instanceof RedisSystemException;
    }
}
