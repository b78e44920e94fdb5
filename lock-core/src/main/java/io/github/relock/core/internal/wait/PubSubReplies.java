package io.github.relock.core.internal.wait;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;

import io.github.relock.core.internal.redis.RedisErrors;

/**
 * Lettuce's asynchronous pub/sub replies (SUBSCRIBE, SSUBSCRIBE and their undoing) as futures that end within the
 * connection's timeout and fail in Spring's terms ({@link RedisErrors#translate(Throwable, String)}): an error reply
 * is Redis refusing, anything else Redis not answering. No thread waits for them.
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
                .exceptionallyCompose(failure -> CompletableFuture.failedFuture(cause(failure) instanceof TimeoutException
                        // the backstop's own: Lettuce times out with a RedisCommandTimeoutException
                        ? new QueryTimeoutException("Redis did not confirm in " + timeout.toMillis() + " ms: " + what,
                                failure)
                        : RedisErrors.translate(failure, what)));
    }

    /** What a failed future failed with, without the wrapper dependent stages add. */
    static Throwable cause(Throwable failure) {
        return RedisErrors.cause(failure);
    }
}
