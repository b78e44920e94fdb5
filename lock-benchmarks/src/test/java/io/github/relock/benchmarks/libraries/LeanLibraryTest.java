package io.github.relock.benchmarks.libraries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;
import io.github.relock.test.RedisServer;
import io.lettuce.core.api.sync.RedisCommands;

/** The lean floor is a real lock, if a minimal one: owner-checked and reentrant, on a real redis-server. */
@Timeout(60)
class LeanLibraryTest {

    private static RedisServer server;
    private static RedisTarget target;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        target = new RedisTarget(server.host(), server.port());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void reentryCountsAndOnlyTheLastReleaseFreesTheLock() {
        RedisCommands<String, String> redis = server.commands();
        try (LockClient client = new LeanLibrary("test").connect(target, null)) {
            BenchLock lock = client.lock("reentry");
            lock.lock();
            lock.lock();
            assertEquals(List.of("2"), redis.hvals("bench:lean:{reentry}"), "one owner, two holds");
            assertTrue(redis.pttl("bench:lean:{reentry}") > 0, "a hold has a lease");

            lock.unlock();
            assertEquals(List.of("1"), redis.hvals("bench:lean:{reentry}"), "the inner release keeps the lock");
            lock.unlock();
            assertEquals(0, redis.exists("bench:lean:{reentry}"), "the last release deletes the hash, nothing else left");
            assertThrows(IllegalMonitorStateException.class, lock::unlock, "a release with no hold");
        }
    }

    @Test
    void anotherOwnerCanNeitherReleaseNorTakeAHeldLock() throws Exception {
        RedisCommands<String, String> redis = server.commands();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (LockClient client = new LeanLibrary("test").connect(target, null);
                LockClient otherClient = new LeanLibrary("test").connect(target, null)) {
            BenchLock lock = client.lock("owned");
            lock.lock();

            // another thread of the same client, and a thread of another client: neither is the owner
            Future<?> sameClient = other.submit(() -> client.lock("owned").unlock());
            ExecutionException refused = assertThrows(ExecutionException.class, () -> sameClient.get(10, TimeUnit.SECONDS));
            assertInstanceOf(IllegalMonitorStateException.class, refused.getCause());
            assertThrows(IllegalMonitorStateException.class, () -> otherClient.lock("owned").unlock());
            assertEquals(List.of("1"), redis.hvals("bench:lean:{owned}"), "the hold is untouched");

            CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
                BenchLock theirs = otherClient.lock("owned");
                theirs.lock();
                theirs.unlock();
            }, other);
            Thread.sleep(300);
            assertFalse(waiter.isDone(), "another owner took a held lock");
            lock.unlock();
            waiter.get(10, TimeUnit.SECONDS);
            assertEquals(0, redis.exists("bench:lean:{owned}"));
        }
        finally {
            other.shutdownNow();
        }
    }
}
