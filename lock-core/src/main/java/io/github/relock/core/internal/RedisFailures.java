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
        // spring-data-redis wraps error replies (OOM, READONLY, NOSCRIPT…) in RedisSystemException
        String what = (ex instanceof RedisSystemException) ? "Redis refused it" : "Redis did not answer";
        return (detail != null) ? what + ": " + detail : what;
    }
}
