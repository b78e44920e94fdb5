package io.github.relock.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.util.ClassUtils;

import io.lettuce.core.api.async.BaseRedisAsyncCommands;

/**
 * {@code WAIT numreplicas timeout} on the connection that just wrote, so that it waits for the
 * replication of that write. spring-data-redis has no method for WAIT and its Lettuce {@code execute}
 * cannot read an integer reply, so on Lettuce it goes through the native connection, which is the one
 * the connection's scripts ran on (the shared connection, or the dedicated one).
 */
final class ReplicaAcknowledgement {

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent(
            "io.lettuce.core.api.async.BaseRedisAsyncCommands", ReplicaAcknowledgement.class.getClassLoader());

    private ReplicaAcknowledgement() {
    }

    /** How many replicas acknowledged everything this connection wrote so far, waiting up to {@code timeoutMillis}. */
    static long await(RedisConnection connection, int replicas, long timeoutMillis) {
        if (LETTUCE_PRESENT && Lettuce.handles(connection)) {
            return Lettuce.await(connection, replicas, timeoutMillis);
        }
        Object reply = connection.execute("WAIT", bytes(replicas), bytes(timeoutMillis));
        if (reply instanceof Number number) {
            return number.longValue();
        }
        if (reply instanceof byte[] raw) {
            return Long.parseLong(new String(raw, StandardCharsets.UTF_8));
        }
        throw new IllegalStateException("Unexpected reply to WAIT: " + reply);
    }

    private static byte[] bytes(long value) {
        return Long.toString(value).getBytes(StandardCharsets.UTF_8);
    }

    /** Kept apart so that Lettuce classes load only when Lettuce is there. */
    private static final class Lettuce {

        static boolean handles(RedisConnection connection) {
            return connection.getNativeConnection() instanceof BaseRedisAsyncCommands<?, ?>;
        }

        static long await(RedisConnection connection, int replicas, long timeoutMillis) {
            BaseRedisAsyncCommands<?, ?> commands = (BaseRedisAsyncCommands<?, ?>) connection.getNativeConnection();
            try {
                // WAIT answers by its own timeout; the margin covers the round trip
                return commands.waitForReplication(replicas, timeoutMillis).get(timeoutMillis + 5_000,
                        TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new RedisSystemException("WAIT interrupted", ex);
            }
            catch (ExecutionException ex) {
                throw new RedisSystemException("WAIT failed: " + ex.getCause().getMessage(), ex.getCause());
            }
            catch (TimeoutException ex) {
                throw new QueryTimeoutException("WAIT did not answer within " + (timeoutMillis + 5_000) + " ms", ex);
            }
        }
    }
}
