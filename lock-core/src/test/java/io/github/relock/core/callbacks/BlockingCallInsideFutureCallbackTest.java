package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * A blocking lock call made inside a callback on an asynchronous result (a wait that ended on a release) works:
 * the result completes off the driver's threads, so the call never waits for replies its own thread must read, ends
 * by its deadline, and a release made there really releases.
 */
@Timeout(180)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class BlockingCallInsideFutureCallbackTest {

    /** A callback's outcome, how long it took and the thread it ran on. */
    record Seen(String outcome, long millis, String thread) {
    }

    interface Body {
        String run() throws Exception;
    }

    @Test
    void aTimedTryLockInsideACallbackEndsByItsDeadline() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            for (int i = 0; i < 3; i++) {
                String inner = "cb:inner:" + i;
                Seen seen = inCallback(client, "cb:outer:" + i, () -> {
                    ReentrantDistributedLock lock = client.getLock(inner);
                    boolean got = lock.tryLock(2, 10, TimeUnit.SECONDS);
                    if (got) {
                        lock.unlock();
                    }
                    return "got " + got;
                });
                assertThat(seen.millis()).as("%s", seen).isLessThan(4_000);
                assertThat(server.commands().exists(client.getLock(inner).getKey())).as("%s", seen).isZero();
            }
        }
    }

    @Test
    void anUnlockInsideACallbackReleasesAtOnce() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            ReentrantDistributedLock other = client.getLock("cb:held");
            LockOwner owner = client.newOwner();
            ReentrantDistributedLock owned = client.getLock("cb:held", owner);
            assertThat(owned.tryLockAsync(Duration.ZERO, Duration.ofSeconds(30), owner).get(5, TimeUnit.SECONDS))
                    .isTrue();
            Seen seen = inCallback(client, "cb:outer", () -> {
                owned.unlock(); // the blocking release of an explicit owner's hold
                return "released";
            });
            assertThat(seen.outcome()).as("%s", seen).isEqualTo("released");
            assertThat(seen.millis()).as("%s", seen).isLessThan(4_000);
            assertThat(server.commands().exists(other.getKey())).as("%s", seen).isZero();
        }
    }

    /**
     * Runs {@code body} in a callback on an asynchronous lock of {@code outer} that completes on a release by
     * another owner; the client still works afterwards.
     */
    private static Seen inCallback(RedisLockClient client, String outer, Body body) throws Exception {
        LockOwner blocker = client.newOwner();
        LockOwner owner = client.newOwner();
        ReentrantDistributedLock lock = client.getLock(outer);
        lock.lockAsync(blocker).get(5, TimeUnit.SECONDS);
        CompletableFuture<Seen> seen = new CompletableFuture<>();
        lock.tryLockAsync(Duration.ofSeconds(10), Duration.ofSeconds(30), owner).thenAccept(got -> {
            long start = System.nanoTime();
            String outcome;
            try {
                outcome = body.run();
            }
            catch (Throwable ex) {
                outcome = ex.toString();
            }
            seen.complete(new Seen(outcome, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
                    Thread.currentThread().getName()));
        });
        Thread.sleep(200);
        lock.unlockAsync(blocker).get(5, TimeUnit.SECONDS);
        Seen result;
        try {
            result = seen.get(60, TimeUnit.SECONDS);
        }
        catch (TimeoutException ex) {
            result = new Seen("no outcome", 60_000, "?");
        }
        lock.unlockAsync(owner).get(20, TimeUnit.SECONDS);
        return result;
    }
}
