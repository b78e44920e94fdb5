package io.github.relock.core.internal;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisConnection;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * Sends a script through Lettuce's asynchronous commands and waits for its reply only a bounded time: a
 * reply that comes later is dropped, and Lettuce times the command out on its own timer, so no thread of
 * relock waits for a Redis that does not answer. Kept apart so that Lettuce's classes load only when used.
 */
final class BriefSend {

    private BriefSend() {
    }

    /**
     * @return false if the connection is not Lettuce's underneath (nothing was sent)
     */
    @SuppressWarnings("unchecked")
    static boolean send(RedisConnection connection, LuaScript<?> script, long waitMillis, int numKeys,
            byte[]... keysAndArgs) {
        if (!(connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce)) {
            return false;
        }
        byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
        byte[][] args = Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length);
        // EVAL, not EVALSHA: a last word must not need a second round trip when the server lost its script cache
        RedisFuture<Object> reply = ((RedisClusterAsyncCommands<byte[], byte[]>) lettuce).eval(script.sourceBytes(),
                ScriptOutputType.valueOf(script.returnType().name()), keys, args);
        if (waitMillis > 0) {
            try {
                reply.await(waitMillis, TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        return true;
    }
}
