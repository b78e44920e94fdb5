package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * A lost-lock listener that waits for another lock (its first wait in this client, so the wait must subscribe
 * for releases, which the listener's own thread opens connections for) gets it soon after that lock's holder
 * releases it, not only when the holder's lease ends.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class LockInsideLossListenerTest {

    @Test
    void aWaitInsideALossListenerIsWokenByTheRelease() throws Exception {
        CompletableFuture<String> seen = new CompletableFuture<>();
        try (RedisServer server = RedisServer.start();
                RedisLockClient rival = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock rivalHeld = rival.getLock("ll:wanted");
            rivalHeld.lock(20, TimeUnit.SECONDS);
            long[] releasedAt = new long[1];
            RedisLockClient[] self = new RedisLockClient[1];
            try (RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory())
                    .watchdogTimeout(Duration.ofMillis(900)).lockLostListener(event -> {
                        try {
                            ReentrantDistributedLock wanted = self[0].getLock("ll:wanted");
                            boolean got = wanted.tryLock(15, 5, TimeUnit.SECONDS);
                            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt[0]);
                            if (got) {
                                wanted.unlock();
                            }
                            seen.complete(got + " " + millis + " ms after the release");
                        }
                        catch (Throwable ex) {
                            seen.complete(ex.toString());
                        }
                    }).build()) {
                self[0] = client;
                ReentrantDistributedLock dropped = client.getLock("ll:dropped");
                dropped.lock();
                assertThat(rival.getLock("ll:dropped").forceUnlock()).isTrue(); // the watchdog finds it lost
                Thread.sleep(2_000);
                releasedAt[0] = System.nanoTime();
                rivalHeld.unlock();
                String outcome = seen.get(30, TimeUnit.SECONDS);
                assertThat(outcome).startsWith("true");
                long millis = Long.parseLong(outcome.split(" ")[1]);
                assertThat(millis).as(outcome).isLessThan(3_000);
            }
        }
    }
}
