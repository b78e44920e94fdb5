package io.github.relock.core.turns;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServer;

/**
 * Many timed waits, blocking and asynchronous, of every kind, on locks held for longer than they wait: each ends
 * with false near its deadline, neither early nor much late.
 */
@Timeout(120)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class TimedWaitsEndAtTheirDeadlineTest {

    @Test
    void everyTimedWaitEndsNearItsDeadline() throws Exception {
        try (RedisServer server = RedisServer.start();
                RedisLockClient holderClient = RedisLockClient.builder(server.newConnectionFactory()).build();
                RedisLockClient client = RedisLockClient.builder(server.newConnectionFactory()).build()) {
            List<String> kinds = List.of("plain", "fair", "write", "read");
            LockOwner holder = holderClient.newOwner();
            for (String kind : kinds) {
                ReentrantDistributedLock held = kind.equals("plain") ? holderClient.getLock("dl:" + kind, holder)
                        : kind.equals("fair") ? holderClient.getFairLock("dl:" + kind, holder)
                                : holderClient.getReadWriteLock("dl:" + kind, holder).writeLock();
                held.tryLockAsync(Duration.ZERO, Duration.ofSeconds(30), holder).get(5, TimeUnit.SECONDS);
            }
            ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
            List<CompletableFuture<Void>> all = new ArrayList<>();
            long waitMillis = 700;
            for (int i = 0; i < 40; i++) {
                String kind = kinds.get(i % kinds.size());
                boolean async = i % 2 == 0;
                LockOwner owner = client.newOwner();
                ReentrantDistributedLock lock = switch (kind) {
                    case "plain" -> async ? client.getLock("dl:" + kind, owner) : client.getLock("dl:" + kind);
                    case "fair" -> async ? client.getFairLock("dl:" + kind, owner) : client.getFairLock("dl:" + kind);
                    case "write" -> (async ? client.getReadWriteLock("dl:" + kind, owner)
                            : client.getReadWriteLock("dl:" + kind)).writeLock();
                    default -> (async ? client.getReadWriteLock("dl:" + kind, owner)
                            : client.getReadWriteLock("dl:" + kind)).readLock();
                };
                CompletableFuture<Void> done = new CompletableFuture<>();
                all.add(done);
                long start = System.nanoTime();
                java.util.function.BiConsumer<Boolean, Throwable> check = (got, failure) -> {
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    if (failure != null || got) {
                        problems.add(kind + (async ? " async" : "") + ": " + got + " " + failure);
                    }
                    else if (millis < waitMillis - 5 || millis > waitMillis + 1_000) {
                        problems.add(kind + (async ? " async" : "") + " ended after " + millis + " ms");
                    }
                    done.complete(null);
                };
                if (async) {
                    lock.tryLockAsync(Duration.ofMillis(waitMillis), Duration.ofSeconds(5), owner).whenComplete(check);
                }
                else {
                    Thread thread = new Thread(() -> {
                        try {
                            check.accept(lock.tryLock(waitMillis, 5_000, TimeUnit.MILLISECONDS), null);
                        }
                        catch (Throwable ex) {
                            check.accept(null, ex);
                        }
                    });
                    thread.setDaemon(true);
                    thread.start();
                }
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(problems).isEmpty();
        }
    }
}
