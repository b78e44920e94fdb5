package io.github.relock.core.internal.redis;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * The one translation of a failed Redis call into Spring's {@link DataAccessException}, whichever way the failure
 * came: thrown at the call, or completing a future (wrapped or not).
 */
public final class RedisErrors {

    private static final LettuceExceptionConverter CONVERTER = new LettuceExceptionConverter();

    private RedisErrors() {
    }

    /** The failure as a {@link RuntimeException}: a {@link DataAccessException} for everything Redis or the driver said. */
    public static RuntimeException translate(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
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
