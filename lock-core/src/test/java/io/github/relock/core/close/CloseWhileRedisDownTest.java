package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServer;

/**
 * close() while Redis is down: waiters wait, the watchdog renews a hold, the pub/sub connection tries to
 * reconnect. Every waiter ends promptly, close() returns, no relock thread is left, and when Redis comes
 * back no connection of the closed client reappears.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CloseWhileRedisDownTest {

    @Test
    void closeWhileReconnecting() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            RedisLockClient holder = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(2)))
                    .build();
            AtomicInteger lost = new AtomicInteger();
            RedisLockClient closing = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(2)))
                    .watchdogTimeout(Duration.ofSeconds(1)).lockLostListener(e -> lost.incrementAndGet()).build();
            String id = closing.getClientId();
            try {
                holder.getLock("bk5:down:a").lock();
                closing.getLock("bk5:down:own").lock();
                List<CompletableFuture<Object>> sync = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    CompletableFuture<Object> f = new CompletableFuture<>();
                    Thread t = new Thread(() -> {
                        try {
                            f.complete(closing.getLock("bk5:down:a").tryLock(30, TimeUnit.SECONDS));
                        }
                        catch (Throwable ex) {
                            f.complete(ex);
                        }
                    }, "bk5-down-waiter");
                    t.setDaemon(true);
                    t.start();
                    sync.add(f);
                }
                List<CompletableFuture<Boolean>> async = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    async.add(closing.getLock("bk5:down:a").tryLockAsync(Duration.ofSeconds(30), null,
                            closing.newOwner()));
                }
                Thread.sleep(500);
                server.kill();
                Thread.sleep(1_500); // reconnect attempts under way, watchdog rounds failing
                long t0 = System.nanoTime();
                closing.close();
                long closeMillis = (System.nanoTime() - t0) / 1_000_000;
                for (CompletableFuture<Object> f : sync) {
                    Object outcome = f.get(3, TimeUnit.SECONDS);
                    assertThat(outcome).as("sync waiter").isNotEqualTo(Boolean.TRUE);
                }
                for (CompletableFuture<Boolean> f : async) {
                    assertThat(Probe.eventually(3_000, f::isDone)).as("async waiter ended").isTrue();
                    try {
                        assertThat(f.get()).isFalse();
                    }
                    catch (ExecutionException expected) {
                        // closed or unreachable
                    }
                }
                assertThat(closeMillis).as("close() took").isLessThan(2_500);
                assertThat(Probe.eventually(3_000, () -> Probe.relockThreads(id).isEmpty()))
                        .as("threads of the closed client: %s", Probe.relockThreads(id)).isTrue();
                int lostAtClose = lost.get();
                server.restart();
                Thread.sleep(3_000); // Lettuce's reconnect delay grows; give a leaked watchdog time to act
                String clients = server.commands().clientList();
                List<String> channels = server.commands().pubsubChannels();
                assertThat(channels).as("channels after the restart").noneMatch(c -> c.contains(id));
                assertThat(lost.get()).as("loss reports after close").isEqualTo(lostAtClose);
                // the holder's client reconnects; the closed client's pub/sub connection must not
                assertThat(clients.lines().filter(l -> l.contains("sub=") && !l.contains("sub=0 ")).count())
                        .as("subscribed connections after the restart:%n%s", clients).isZero();
            }
            finally {
                holder.close();
                closing.close();
            }
        }
    }
}
