package io.github.relock.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServerExtension;

/** Helpers: the plain lock's line of clients (turns.lua). */
public final class Lines {

    private Lines() {
    }

    public static String turnKey(RedisLockClient client, String name) {
        return client.redisKeys(name).lock() + ":turn";
    }

    /** Waits (5 s at most) until {@code client} is in the line of lock {@code name}. */
    public static void awaitInLine(RedisServerExtension redis, String name, RedisLockClient client) {
        String key = turnKey(client, name);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            String line = redis.commands().get(key);
            if (line != null && (line.startsWith(client.getClientId() + ":")
                    || line.contains(":" + client.getClientId() + ":"))) {
                return;
            }
            assertThat(System.nanoTime()).as("client %s in the line of %s (line: %s)", client.getClientId(), name,
                    line).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    public static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
