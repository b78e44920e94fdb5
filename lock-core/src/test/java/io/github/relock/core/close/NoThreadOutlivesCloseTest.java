package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServer;

/**
 * When close() returns, none of the client's threads is alive any more, checked at that very moment: an executor
 * counts itself terminated just before its thread exits, so close() joins the threads themselves.
 */
@Timeout(120)
@Tag("redis-version-independent")
class NoThreadOutlivesCloseTest {

    private static final int CLIENTS = 60;

    @Test
    void noThreadOfTheClientIsAliveWhenCloseReturns() {
        try (RedisServer server = RedisServer.start()) {
            for (int i = 0; i < CLIENTS; i++) {
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory())
                        .watchdogTimeout(Duration.ofMillis(300)).build();
                String id = client.getClientId();
                ReentrantDistributedLock lock = client.getLock("outlive:" + i);
                lock.lock(); // a watchdog hold: the scheduler runs its renewals
                lock.unlock();
                client.close();
                assertThat(Probe.relockThreads(id)).as("client %d: %s", i, Probe.relockThreadStacks(id)).isEmpty();
            }
        }
    }
}
