package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServer;

/**
 * close() while Redis is frozen (SIGSTOP: sockets open, no answers) and the client waits and renews: close()
 * and every waiter end well before the command timeout, and nothing of the client is left once Redis answers.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CloseWhileRedisPausedTest {

    @Test
    void closeWhileFrozen() throws Exception {
        closeWhileFrozen(Kind.PLAIN);
    }

    /** A fair lock's waiters leave their places in the line on close without waiting for the frozen Redis. */
    @Test
    void closeWhileFrozenFair() throws Exception {
        closeWhileFrozen(Kind.FAIR);
    }

    /** A read-write lock's readers withdraw on close without waiting for the frozen Redis. */
    @Test
    void closeWhileFrozenReadWrite() throws Exception {
        closeWhileFrozen(Kind.READ_WRITE);
    }

    private enum Kind { PLAIN, FAIR, READ_WRITE }

    private void closeWhileFrozen(Kind kind) throws Exception {
        try (RedisServer server = RedisServer.start()) {
            RedisLockClient holder = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(8)))
                    .build();
            RedisLockClient closing = RedisLockClient.builder(server.newConnectionFactory(Duration.ofSeconds(8)))
                    .watchdogTimeout(Duration.ofSeconds(1)).build();
            String id = closing.getClientId();
            try {
                (kind == Kind.READ_WRITE ? holder.getReadWriteLock("bk5:paused:rw").writeLock() : lockOf(holder, kind))
                        .lock();
                closing.getLock("bk5:paused:own").lock();
                List<CompletableFuture<Object>> waits = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    waits.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return lockOf(closing, kind).tryLock(30, TimeUnit.SECONDS);
                        }
                        catch (Throwable ex) {
                            return ex;
                        }
                    }));
                    waits.add(lockOf(closing, kind).tryLockAsync(Duration.ofSeconds(30), null,
                            closing.newOwner()).handle((r, ex) -> ex != null ? ex : r));
                }
                // the pub/sub connection is open (one opened against the frozen server would wait its connect timeout)
                assertThat(Probe.eventually(5_000, () -> server.commands().pubsubChannels().stream()
                        .anyMatch(c -> c.contains(id)))).isTrue();
                Thread.sleep(300);
                if (kind != Kind.PLAIN) {
                    // fair waiters try again every second, readers every 1.3 s: freeze just after such a round, so
                    // that none is on its way at close() (that one would end at the command timeout, by design)
                    awaitRetryRound(server);
                }
                server.pause();
                Thread.sleep(400); // a watchdog round (every 333 ms) is stuck on the frozen server now
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

    /** Returns once the server has run at least 3 scripts within 20 ms: the waiters' attempts, not a renewal. */
    private static void awaitRetryRound(RedisServer server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long before = scriptCalls(server);
        while (System.nanoTime() < deadline) {
            Thread.sleep(20);
            long now = scriptCalls(server);
            if (now - before >= 3) {
                return;
            }
            before = now;
        }
        throw new AssertionError("no round of attempts within 5 s");
    }

    private static long scriptCalls(RedisServer server) {
        Matcher calls = Pattern.compile("cmdstat_evalsha:calls=(\\d+)").matcher(server.commands().info("commandstats"));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    private static io.github.relock.core.ReentrantDistributedLock lockOf(RedisLockClient client, Kind kind) {
        return switch (kind) {
            case PLAIN -> client.getLock("bk5:paused");
            case FAIR -> client.getFairLock("bk5:paused:fair");
            case READ_WRITE -> client.getReadWriteLock("bk5:paused:rw").readLock();
        };
    }
}
