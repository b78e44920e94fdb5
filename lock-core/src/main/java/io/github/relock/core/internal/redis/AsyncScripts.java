package io.github.relock.core.internal.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * Sends commands through the Lettuce asynchronous commands of a spring-data-redis connection and completes a
 * future with the reply: a script goes as EVALSHA, then as EVAL once if the server has not seen it (a restart, a
 * failover), and again after a pause on the {@link ClientScheduler} while Redis Cluster refuses it for a moment
 * without running it: {@code TRYAGAIN} from a migrating slot, {@code CLUSTERDOWN} from a node that serves no slot
 * for the key or sees the cluster down (during a failover or a slot's move). No thread waits for a reply;
 * {@link #await} is for a caller that chooses to.
 */
public final class AsyncScripts {

    /** Attempts and pause for a script Redis Cluster refused for a moment (TRYAGAIN, CLUSTERDOWN): up to 2 s. */
    public static final int TRYAGAIN_ATTEMPTS = 40;
    public static final long TRYAGAIN_PAUSE_MILLIS = 50;
    /** Errors a cluster node answers before it runs a script, while the cluster changes: the script did not run. */
    private static final List<String> REFUSED_FOR_A_MOMENT = List.of("TRYAGAIN", "CLUSTERDOWN");
    /** A backstop beyond the connection's own command timeout, for clients that turned Lettuce's timeouts off. */
    private static final long BACKSTOP_MILLIS = 1_000;
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private final ClientScheduler scheduler;

    public AsyncScripts(ClientScheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** A script as sent: its SHA-1, its source for EVAL, and whether it answers with a list (else an integer). */
    public record Script(String sha1, byte[] source, boolean multi) {
    }

    /** Lettuce's asynchronous commands under a spring-data-redis connection (also one a factory wraps). */
    @SuppressWarnings("unchecked")
    public static RedisClusterAsyncCommands<byte[], byte[]> commands(RedisConnection connection) {
        Object nativeConnection = connection.getNativeConnection();
        if (nativeConnection instanceof RedisClusterAsyncCommands<?, ?> commands) {
            return (RedisClusterAsyncCommands<byte[], byte[]>) commands;
        }
        throw new InvalidDataAccessApiUsageException("relock needs a Lettuce connection, not "
                + nativeConnection.getClass().getName());
    }

    /** The command timeout of these commands' connection, as Lettuce applies it. */
    public static Duration timeout(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        if (commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
            return standalone.getStatefulConnection().getTimeout();
        }
        if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
            return cluster.getStatefulConnection().getTimeout();
        }
        return DEFAULT_TIMEOUT;
    }

    /** Runs {@code script}; the future fails with a {@code DataAccessException} (see {@link RedisErrors}). */
    public <T> CompletableFuture<T> eval(RedisClusterAsyncCommands<byte[], byte[]> commands, Script script,
            int numKeys, byte[]... keysAndArgs) {
        return start(commands, script, false, numKeys, keysAndArgs);
    }

    /**
     * As {@link #eval}, but sends the script's source (EVAL) at once: for a call that must run when Redis gets to it
     * even if its reply comes too late, since a NOSCRIPT reply that comes after the command timed out is dropped,
     * and with it the EVAL it should have caused.
     */
    public <T> CompletableFuture<T> evalSource(RedisClusterAsyncCommands<byte[], byte[]> commands, Script script,
            int numKeys, byte[]... keysAndArgs) {
        return start(commands, script, true, numKeys, keysAndArgs);
    }

    private <T> CompletableFuture<T> start(RedisClusterAsyncCommands<byte[], byte[]> commands, Script script,
            boolean bySource, int numKeys, byte[]... keysAndArgs) {
        byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
        byte[][] args = Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length);
        CompletableFuture<T> result = new CompletableFuture<>();
        send(commands, script, keys, args, bySource, result, 1);
        return result;
    }

    private <T> void send(RedisClusterAsyncCommands<byte[], byte[]> commands, Script script, byte[][] keys,
            byte[][] args, boolean bySource, CompletableFuture<T> result, int attempt) {
        ScriptOutputType type = script.multi() ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
        CompletableFuture<T> sent;
        try {
            sent = bySource ? commands.<T>eval(script.source(), type, keys, args).toCompletableFuture()
                    : commands.<T>evalsha(script.sha1(), type, keys, args).toCompletableFuture()
                    .exceptionallyCompose(failure -> RedisErrors.says(failure, "NOSCRIPT")
                            // EVAL also caches the script, so the next EVALSHA finds it
                            ? commands.<T>eval(script.source(), type, keys, args).toCompletableFuture()
                            : CompletableFuture.failedFuture(failure));
        }
        catch (RuntimeException ex) {
            sent = CompletableFuture.failedFuture(ex); // refused before sending (a closed connection)
        }
        sent.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            }
            else if (attempt < TRYAGAIN_ATTEMPTS && refusedForAMoment(failure) && again(
                    () -> send(commands, script, keys, args, bySource, result, attempt + 1), result)) {
                // the script did not run: sent again after a pause, with no thread held meanwhile
            }
            else {
                result.completeExceptionally(RedisErrors.translate(failure));
            }
        });
    }

    private static boolean refusedForAMoment(Throwable failure) {
        return REFUSED_FOR_A_MOMENT.stream().anyMatch(code -> RedisErrors.says(failure, code));
    }

    /** Sends again after a pause; a client closed meanwhile fails {@code result}, since the script never ran. */
    private boolean again(Runnable send, CompletableFuture<?> result) {
        try {
            scheduler.scheduleSend(send, TimeUnit.MILLISECONDS.toNanos(TRYAGAIN_PAUSE_MILLIS),
                    () -> result.completeExceptionally(new IllegalStateException("The lock client closed while Redis "
                            + "Cluster refused a lock script for a moment; the script did not run")));
            return true;
        }
        catch (RejectedExecutionException closed) {
            return false;
        }
    }

    /** Sends a command of Lettuce's own; the future fails with a {@code DataAccessException}. */
    public static <T> CompletableFuture<T> call(RedisClusterAsyncCommands<byte[], byte[]> commands,
            Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
        CompletableFuture<T> sent;
        try {
            sent = command.apply(commands).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            sent = CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        sent.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            }
            else {
                result.completeExceptionally(RedisErrors.translate(failure));
            }
        });
        return result;
    }

    /**
     * {@code reply}, failed with a {@code QueryTimeoutException} if it has not come within {@code millis}: a
     * backstop, timed on the {@link ClientScheduler}, for a chain of commands that must end even where Lettuce's own
     * command timeouts are off. A closed scheduler times nothing. The future fails with a {@code DataAccessException}.
     */
    public <T> CompletableFuture<T> within(CompletableFuture<T> reply, long millis) {
        CompletableFuture<T> result = new CompletableFuture<>();
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> result.completeExceptionally(
                    new QueryTimeoutException("No reply within " + millis + " ms")), TimeUnit.MILLISECONDS.toNanos(millis));
        }
        catch (RejectedExecutionException closed) {
            timer = null;
        }
        ScheduledFuture<?> backstop = timer;
        reply.whenComplete((value, failure) -> {
            if (backstop != null) {
                backstop.cancel(false);
            }
            if (failure == null) {
                result.complete(value);
            }
            else {
                try {
                    result.completeExceptionally(RedisErrors.translate(failure));
                }
                catch (Error error) {
                    result.completeExceptionally(error); // an Error is not translated, but must still end the chain
                }
            }
        });
        return result;
    }

    /**
     * Waits for {@code reply} as a blocking caller does: an interrupt does not end the wait, since the command may
     * have run on the server and the caller must learn its outcome; the interrupt status is kept for the caller.
     * Lettuce times a command out at the connection's timeout; a second past it, this stops waiting regardless.
     */
    public static <T> @Nullable T await(CompletableFuture<T> reply, Duration timeout) {
        refuseDriverThread();
        long deadline = System.nanoTime() + timeout.toNanos() + TimeUnit.MILLISECONDS.toNanos(BACKSTOP_MILLIS);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
                catch (ExecutionException ex) {
                    throw RedisErrors.translate(ex.getCause() != null ? ex.getCause() : ex);
                }
                catch (TimeoutException ex) {
                    throw new QueryTimeoutException("Redis did not answer within " + timeout.toMillis() + " ms", ex);
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Refuses to wait on a thread of the Redis driver's event loops (a callback of a future that completed there): it
     * reads the very replies the wait would be for, so the wait could only end at the command timeout, holding up every
     * reply of its connections (renewals too) meanwhile.
     *
     * @throws IllegalStateException on such a thread
     */
    public static void refuseDriverThread() {
        String name = Thread.currentThread().getName();
        if (name.startsWith("lettuce-") && name.contains("EventLoop")) {
            throw new IllegalStateException("A blocking relock call ran on " + name + ", a thread of the Redis driver "
                    + "that reads the reply it would wait for: make it from a thread of your own (for example in "
                    + "thenApplyAsync(..., executor)), or use the *Async methods");
        }
    }
}
