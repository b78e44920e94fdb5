package io.github.relock.chaos;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.internal.client.ClientRuntime;

/**
 * The control for the close checks: a {@code close()} that forgets its watchdog and its pub/sub connection.
 * Applied just before {@code close()}, through lock-core's fault-testing hook: that close() marks the client
 * closed and stops nothing, so its watchdog keeps renewing what the client held, its threads stay alive and its
 * subscription stays.
 */
final class BrokenClose {

    private BrokenClose() {
    }

    static void leakOnClose(RedisLockClient client) {
        ClientRuntime.leakOnNextClose(client.getClientId());
    }
}
