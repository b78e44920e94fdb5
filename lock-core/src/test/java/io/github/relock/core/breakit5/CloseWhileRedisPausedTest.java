package io.github.relock.core.breakit5;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServer;

/**
 * close() while Redis is frozen (SIGSTOP: sockets open, no answers) and the client waits and renews: close()
 * and every waiter end well before the command timeout, and nothing of the client is left once Redis answers.
 */
@Timeout(60)
class CloseWhileRedisPausedTest {

    @Test
    void closeWhileFrozen() throws Exception {
        closeWhileFrozen(false);
    }

    /**
     * The same on a fair lock: its waiters still leave their places in the line on close (a place lasts
     * seconds), so against a frozen Redis each one ends only after the command timeout. Not fixed.
     */
    @Test
    @org.junit.jupiter.api.Disabled("known: a closed client's fair-lock waiters wait the command timeout for line.lua")
    void closeWhileFrozenFair() throws Exception {
        closeWhileFrozen(true);
    }

    private void closeWhileFrozen(boolean fair) throws Exception {
        try (RedisServer server = RedisServer.start()) {
            RedisLockClient holder = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(8)))
                    .build();
            RedisLockClient closing = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(8)))
                    .watchdogTimeout(Duration.ofSeconds(1)).build();
            String id = closing.getClientId();
            try {
                lockOf(holder, fair).lock();
                closing.getLock("bk5:paused:own").lock();
                List<CompletableFuture<Object>> waits = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    waits.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return lockOf(closing, fair).tryLock(30, TimeUnit.SECONDS);
                        }
                        catch (Throwable ex) {
                            return ex;
                        }
                    }));
                    waits.add(lockOf(closing, fair).tryLockAsync(Duration.ofSeconds(30), null,
                            closing.newOwner()).handle((r, ex) -> ex != null ? ex : r));
                }
                Thread.sleep(500);
                server.pause();
                Thread.sleep(700); // a watchdog round is stuck on the frozen server now
                long t0 = System.nanoTime();
                closing.close();
                long closeMillis = (System.nanoTime() - t0) / 1_000_000;
                long t1 = System.nanoTime();
                for (CompletableFuture<Object> w : waits) {
                    Object outcome = w.get(10, TimeUnit.SECONDS);
                    System.out.println("waiter " + waits.indexOf(w) + " at " + (System.nanoTime() - t1) / 1_000_000
                            + " ms: " + outcome);
                    assertThat(outcome).isNotEqualTo(Boolean.TRUE);
                }
                long waitersMillis = (System.nanoTime() - t1) / 1_000_000;
                System.out.println("close " + closeMillis + " ms, waiters ended " + waitersMillis + " ms later");
                assertThat(closeMillis).as("close() took").isLessThan(3_000);
                assertThat(waitersMillis).as("waiters ended after close()").isLessThan(2_000);
                assertThat(Probe.eventually(2_000, () -> Probe.relockThreads(id).isEmpty()))
                        .as("threads: %s", Probe.relockThreads(id)).isTrue();
                server.resume();
                Thread.sleep(500);
                assertThat(server.commands().pubsubChannels()).noneMatch(c -> c.contains(id));
            }
            finally {
                if (server.isPaused()) {
                    server.resume();
                }
                holder.close();
                closing.close();
            }
        }
    }

    private static io.github.relock.core.ReentrantDistributedLock lockOf(RedisLockClient client, boolean fair) {
        return fair ? client.getFairLock("bk5:paused:fair") : client.getLock("bk5:paused");
    }
}
