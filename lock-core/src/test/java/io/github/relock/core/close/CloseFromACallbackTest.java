package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServer;

/**
 * close() called from the client's own threads (an asynchronous call's callback, a lost-lock listener) returns,
 * and the client's threads end soon after, with no renewal left running.
 */
@Timeout(60)
@Tag("redis-version-independent")
class CloseFromACallbackTest {

    @Test
    void closeFromAnAsyncCallbackEndsEveryThread() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory())
                    .watchdogTimeout(Duration.ofMillis(300)).build();
            String id = client.getClientId();
            client.getLock("cb:held").lock();
            ReentrantDistributedLock lock = client.getLock("cb:async");
            CompletableFuture<Void> closed = lock.tryLockAsync(Duration.ofSeconds(1), null, client.newOwner())
                    .thenRun(client::close).toCompletableFuture();
            closed.get(10, TimeUnit.SECONDS);
            assertThat(client.isClosed()).isTrue();
            assertThat(Probe.eventually(3_000, () -> Probe.relockThreads(id).isEmpty()))
                    .as("%s", Probe.relockThreadStacks(id)).isTrue();
            Long ttl = server.commands().pttl("lock:{cb:held}");
            Thread.sleep(500); // a renewal would lengthen it
            assertThat(server.commands().pttl("lock:{cb:held}")).isLessThanOrEqualTo(ttl);
        }
    }

    @Test
    void closeFromAListenerEndsEveryThread() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient other = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            CompletableFuture<Void> closed = new CompletableFuture<>();
            RedisLockClient[] client = new RedisLockClient[1];
            client[0] = RedisLockClient.builder(server.newConnectionFactory()).watchdogTimeout(Duration.ofMillis(300))
                    .lockLostListener(event -> {
                        client[0].close();
                        closed.complete(null);
                    }).build();
            String id = client[0].getClientId();
            client[0].getLock("cb:kept").lock();
            client[0].getLock("cb:lost").lock();
            assertThat(other.getLock("cb:lost").forceUnlock()).isTrue();
            closed.get(10, TimeUnit.SECONDS);
            assertThat(Probe.eventually(3_000, () -> Probe.relockThreads(id).isEmpty()))
                    .as("%s", Probe.relockThreadStacks(id)).isTrue();
            Long ttl = server.commands().pttl("lock:{cb:kept}");
            Thread.sleep(500);
            assertThat(server.commands().pttl("lock:{cb:kept}")).isLessThanOrEqualTo(ttl);
        }
    }
}
