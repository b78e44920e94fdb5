package io.github.relock.core.interrupts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * An interruptible wait on a Redis that does not answer ends soon after an interrupt, with an
 * InterruptedException, and a timed wait on it ends within its wait time plus twice the command timeout (the
 * bound a Redis restart is held to); nothing stays locked once Redis answers.
 */
@Timeout(90)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class InterruptWhileRedisPausedTest {

    @Test
    void anInterruptEndsAWaitOnAPausedRedisPromptly() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient holder = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock held = holder.getLock("ipause");
            held.lock(); // the waiter below waits, then its next attempt meets a paused Redis
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    client.getLock("ipause").lockInterruptibly();
                    outcome.complete("locked");
                }
                catch (InterruptedException ex) {
                    outcome.complete("interrupted");
                }
                catch (Throwable ex) {
                    outcome.complete(ex.toString());
                }
            });
            waiter.start();
            Thread.sleep(300);
            server.pause();
            try {
                Thread.sleep(200);
                long start = System.nanoTime();
                waiter.interrupt();
                String seen = outcome.get(30, TimeUnit.SECONDS);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(seen).isEqualTo("interrupted");
                assertThat(millis).as("interrupt to return").isLessThan(1_000);
            }
            finally {
                server.resume();
            }
            held.unlock();
            assertThat(client.getLock("ipause").tryLock(5, 10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aTimedWaitOnAPausedRedisEndsWithinTwoCommandTimeoutsOfItsDeadline() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("tpause");
            server.pause();
            long start = System.nanoTime();
            String seen;
            try {
                seen = String.valueOf(lock.tryLock(500, 10_000, TimeUnit.MILLISECONDS));
            }
            catch (RuntimeException ex) {
                seen = ex.toString();
            }
            finally {
                server.resume();
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // wait + 2 command timeouts (5 s each) + margin
            assertThat(millis).as("tryLock(500 ms) on a paused Redis took %d ms: %s", millis, seen)
                    .isLessThan(500 + 2 * 5_000 + 1_500);
        }
    }
}
