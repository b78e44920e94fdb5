package io.github.relock.core.internal.wait;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;

/**
 * Lettuce's asynchronous pub/sub replies (SUBSCRIBE, SSUBSCRIBE and their undoing) as futures that end within the
 * connection's timeout and fail in Spring's terms: an error reply is Redis refusing, anything else Redis not
 * answering. No thread waits for them.
 */
final class PubSubReplies {

    /** Lettuce's own command timeout, if it has one, goes first; this only makes sure the future ends. */
    private static final long BACKSTOP_MILLIS = 100;

    private PubSubReplies() {
    }

    /** {@code reply}, failing with a {@link DataAccessException} if Redis refused it or gave no answer in time. */
    static <T> CompletableFuture<T> within(CompletionStage<T> reply, Duration timeout, String what) {
        CompletableFuture<T> answered = new CompletableFuture<>();
        reply.whenComplete((value, failure) -> {
            if (failure == null) {
                answered.complete(value);
            }
            else {
                answered.completeExceptionally(failure);
            }
        });
        // a JDK timer thread, not the client's, ends it: it only completes the future
        return answered.orTimeout(timeout.toMillis() + BACKSTOP_MILLIS, TimeUnit.MILLISECONDS)
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(translate(failure, timeout, what)));
    }

    /** What a failed future failed with, without the wrapper dependent stages add. */
    static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private static DataAccessException translate(Throwable failure, Duration timeout, String what) {
        Throwable cause = cause(failure);
        if (cause instanceof DataAccessException translated) {
            return translated;
        }
        if (cause instanceof TimeoutException) {
            return new QueryTimeoutException("Redis did not confirm in " + timeout.toMillis() + " ms: " + what, cause);
        }
        String message = "Could not " + what + ": " + cause.getMessage();
        if (cause instanceof RedisCommandTimeoutException) {
            return new QueryTimeoutException(message, cause);
        }
        // an error reply is Redis refusing; anything else (a lost connection) is Redis not answering
        return cause instanceof RedisCommandExecutionException ? new RedisSystemException(message, cause)
                : new RedisConnectionFailureException(message, cause);
    }
}
