package io.github.relock.core.internal.redis;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;

/**
 * The one translation of a failed Redis call into Spring's {@link DataAccessException}, whichever way the failure
 * came: thrown at the call, or completing a future (wrapped or not).
 *
 * <p>Two readings share it. A script or read ({@link #translate(Throwable)}) is read as Spring reads Lettuce's
 * failures, so callers see what spring-data-redis would throw. A command of relock's own bookkeeping, named by what
 * it did ({@link #translate(Throwable, String)}: a SUBSCRIBE, opening the pub/sub connection), is read in the two
 * terms its caller acts on: Redis refused it, or Redis did not answer.
 */
public final class RedisErrors {

    private static final LettuceExceptionConverter CONVERTER = new LettuceExceptionConverter();

    private RedisErrors() {
    }

    /** The failure as a {@link RuntimeException}: a {@link DataAccessException} for everything Redis or the driver said. */
    public static RuntimeException translate(Throwable failure) {
        Throwable cause = cause(failure);
        if (cause instanceof DataAccessException known) {
            return known;
        }
        if (cause instanceof Exception exception) {
            DataAccessException translated = CONVERTER.convert(exception);
            if (translated != null) {
                return translated;
            }
            if (cause instanceof RuntimeException runtime) {
                return runtime; // a bug or a refused argument of relock's own: not Redis's
            }
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new RedisSystemException(String.valueOf(cause), cause);
    }

    /**
     * The failure of {@code what} ("subscribe to lock:{a}:released") as a {@link DataAccessException} whose message
     * says "Could not {@code what}": an error reply is Redis refusing it ({@link RedisSystemException}); anything
     * else is Redis not answering, a {@link QueryTimeoutException} if it timed out and a
     * {@link RedisConnectionFailureException} otherwise (a lost or closed connection). One Spring already
     * translated stays as it is.
     */
    public static DataAccessException translate(Throwable failure, String what) {
        Throwable cause = cause(failure);
        if (cause instanceof DataAccessException known) {
            return known;
        }
        String message = "Could not " + what + ": " + cause.getMessage();
        if (cause instanceof RedisCommandTimeoutException || cause instanceof TimeoutException) {
            return new QueryTimeoutException(message, cause);
        }
        return cause instanceof RedisCommandExecutionException ? new RedisSystemException(message, cause)
                : new RedisConnectionFailureException(message, cause);
    }

    /** What a failed future failed with, without the wrappers ({@link CompletionException}, {@link ExecutionException}) stages add. */
    public static Throwable cause(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** Whether {@code failure} or one of its causes says {@code text} (NOSCRIPT, TRYAGAIN). */
    public static boolean says(Throwable failure, String text) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
            if (t.getMessage() != null && t.getMessage().contains(text)) {
                return true;
            }
        }
        return false;
    }
}
