package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.core.testing.OwnThread;
import io.github.relock.test.RedisServerExtension;

/**
 * close() while waiters' subscriptions are under way on the client's own threads (the pub/sub connection takes
 * the TCP connection and answers nothing): the waiters end at once, the closed client never takes the lock,
 * not even when the subscribe answers after close() or the holder's lease ends, and its threads end.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CloseWhileJoiningTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aClosedClientTakesNoLockWhenItsSubscribeAnswersLate() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient closing = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            String id = closing.getClientId();
            ReentrantDistributedLock warm = closing.getLock("bk10:close-warm");
            assertThat(warm.tryLock()).isTrue();
            warm.unlock();
            proxy.freezeNew(true);
            String name = "bk10:close-joining";
            assertThat(holder.getLock(name).tryLock(0, 1_200, TimeUnit.MILLISECONDS)).isTrue();
            List<CompletableFuture<Object>> waits = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                waits.add(OwnThread.supply(() -> {
                    try {
                        return closing.getLock(name).tryLock(20, TimeUnit.SECONDS);
                    }
                    catch (Throwable ex) {
                        return ex;
                    }
                }));
                waits.add(closing.getLock(name).tryLockAsync(Duration.ofSeconds(20), null, closing.newOwner())
                        .handle((acquired, ex) -> ex != null ? ex : acquired));
            }
            Thread.sleep(400); // each has tried once and is joining: the pub/sub connection does not open
            long start = System.nanoTime();
            // on a thread of its own: close() waits up to 1 s for the relock-events thread that opens the connection
            CompletableFuture<Long> closed = OwnThread.supply(() -> {
                closing.close();
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            });
            for (CompletableFuture<Object> wait : waits) {
                Object outcome = wait.get(10, TimeUnit.SECONDS);
                System.out.printf("waiter %d ended %d ms after close(): %s%n", waits.indexOf(wait),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), outcome);
                assertThat(outcome).isInstanceOf(IllegalStateException.class);
            }
            long endedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long closeMillis = closed.get(10, TimeUnit.SECONDS);
            proxy.freezeNew(false); // the opening goes through now, after close()
            System.out.printf("waiters ended %d ms, close() returned %d ms after it began%n", endedMillis, closeMillis);
            assertThat(endedMillis).as("ms for the waiters to end after close()").isLessThan(500);
            assertThat(closeMillis).as("ms close() took").isLessThan(2_000);
            Thread.sleep(1_500); // the holder's lease has ended
            assertThat(redis.server().command("EXISTS", closing.redisKeys(name).lock())).as("lock taken by someone")
                    .isEqualTo("0");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT.toSeconds() + 2);
            while (!relockThreads(id).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(relockThreads(id)).as("threads of the closed client").isEmpty();
        }
    }

    private static List<String> relockThreads(String part) {
        List<String> names = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.isAlive() && thread.getName().startsWith("relock") && thread.getName().contains(part)) {
                names.add(thread.getName());
            }
        }
        return names;
    }
}
