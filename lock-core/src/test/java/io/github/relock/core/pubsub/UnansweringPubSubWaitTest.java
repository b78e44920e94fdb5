package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
 * The waiter's pub/sub connection does not answer (its opening, its SUBSCRIBE, its UNSUBSCRIBE) while its data
 * connection works. A timed wait must end at its wait time, not at the command timeout (5 s here), and a lock
 * that frees meanwhile must still be taken by looking again.
 */
@Timeout(90)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class UnansweringPubSubWaitTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** The wait time, and slack for a loaded machine: far below the command timeout. */
    private static final long WITHIN_MILLIS = 1_000 + 600;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** D1: a proxy takes the pub/sub connection's TCP connection and forwards nothing on it. */
    @Test
    void aTimedWaitEndsInTimeWhileThePubSubConnectionDoesNotOpen() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            warmDataConnection(waiter);
            proxy.freezeNew(true);
            holder.getLock("bk10:open").lock();
            long start = System.nanoTime();
            boolean acquired = waiter.getLock("bk10:open").tryLock(1, TimeUnit.SECONDS);
            long took = millisSince(start);
            System.out.printf("D1 sync, opening unanswered: tryLock(1 s)=%s after %d ms%n", acquired, took);
            assertThat(acquired).isFalse();
            assertThat(took).as("ms a 1 s tryLock took").isLessThan(WITHIN_MILLIS);
        }
    }

    @Test
    void anAsyncTimedWaitEndsInTimeWhileThePubSubConnectionDoesNotOpen() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            warmDataConnection(waiter);
            proxy.freezeNew(true);
            holder.getLock("bk10:async").lock();
            long start = System.nanoTime();
            CompletableFuture<Boolean> result = waiter.getLock("bk10:async").tryLockAsync(Duration.ofSeconds(1), null,
                    waiter.newOwner());
            boolean acquired = result.get(20, TimeUnit.SECONDS);
            long took = millisSince(start);
            System.out.printf("D1 async, opening unanswered: tryLockAsync(1 s)=%s after %d ms%n", acquired, took);
            assertThat(acquired).isFalse();
            assertThat(took).as("ms a 1 s tryLockAsync took").isLessThan(WITHIN_MILLIS);
        }
    }

    /** No release announcement can come, but the holder's lease ends: looking again takes the lock. */
    @Test
    void aWaitStillTakesALockFreedMeanwhileWhileThePubSubConnectionDoesNotOpen() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            warmDataConnection(waiter);
            proxy.freezeNew(true);
            assertThat(holder.getLock("bk10:frees").tryLock(0, 700, TimeUnit.MILLISECONDS)).isTrue();
            ReentrantDistributedLock lock = waiter.getLock("bk10:frees");
            long start = System.nanoTime();
            boolean acquired = lock.tryLock(3, TimeUnit.SECONDS);
            long took = millisSince(start);
            System.out.printf("D1 sync, lease ends at 0.7 s: tryLock(3 s)=%s after %d ms%n", acquired, took);
            assertThat(acquired).isTrue();
            assertThat(took).as("ms to take a lock whose lease ended at 0.7 s").isLessThan(700 + 800);
            lock.unlock();
            assertThat(holder.getLock("bk10:frees").tryLock(0, 700, TimeUnit.MILLISECONDS)).isTrue();
            start = System.nanoTime();
            boolean asyncAcquired = waiter.getLock("bk10:frees").tryLockAsync(Duration.ofSeconds(3),
                    Duration.ofSeconds(5), waiter.newOwner()).get(20, TimeUnit.SECONDS);
            took = millisSince(start);
            System.out.printf("D1 async, lease ends at 0.7 s: tryLockAsync(3 s)=%s after %d ms%n", asyncAcquired, took);
            assertThat(asyncAcquired).isTrue();
            assertThat(took).as("ms to take it asynchronously").isLessThan(700 + 800);
        }
    }

    /** D1: the pub/sub connection is open, and its SUBSCRIBE gets no answer. */
    @Test
    void aTimedWaitEndsInTimeWhileTheSubscribeIsUnanswered() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            openPubSub(holder, waiter);
            proxy.freezePubSub(true);
            holder.getLock("bk10:subscribe").lock();
            long start = System.nanoTime();
            boolean acquired = waiter.getLock("bk10:subscribe").tryLock(1, TimeUnit.SECONDS);
            long took = millisSince(start);
            System.out.printf("D1 sync, SUBSCRIBE unanswered: tryLock(1 s)=%s after %d ms%n", acquired, took);
            assertThat(acquired).isFalse();
            assertThat(took).as("ms a 1 s tryLock took").isLessThan(WITHIN_MILLIS);
        }
    }

    /**
     * D1: while Redis does not answer the SUBSCRIBE of a blocking and of an asynchronous wait, no thread of the client
     * waits for it; both still take their lock when the holder's lease ends.
     */
    @Test
    void anUnansweredSubscribeHoldsNoThreadOfTheClient() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            openPubSub(holder, waiter);
            proxy.freezePubSub(true);
            assertThat(holder.getLock("bk10:threads").tryLock(0, 1_500, TimeUnit.MILLISECONDS)).isTrue();
            assertThat(holder.getLock("bk10:threads-async").tryLock(0, 1_500, TimeUnit.MILLISECONDS)).isTrue();
            long start = System.nanoTime();
            CompletableFuture<Boolean> blocking = OwnThread.supply(() -> {
                boolean acquired = tryLock(waiter, "bk10:threads", 4);
                if (acquired) {
                    waiter.getLock("bk10:threads").unlock();
                }
                return acquired;
            });
            CompletableFuture<Boolean> async = waiter.getLock("bk10:threads-async").tryLockAsync(Duration.ofSeconds(4),
                    Duration.ofSeconds(5), waiter.newOwner());
            List<String> held = new ArrayList<>();
            while (millisSince(start) < 1_200) { // both SUBSCRIBEs are unanswered all along
                held.addAll(threadsWaitingOnPubSub());
                Thread.sleep(20);
            }
            boolean acquired = blocking.get(20, TimeUnit.SECONDS);
            boolean asyncAcquired = async.get(20, TimeUnit.SECONDS);
            long took = millisSince(start);
            System.out.printf("D1, SUBSCRIBE unanswered: tryLock(4 s)=%s, tryLockAsync(4 s)=%s after %d ms (lease ends "
                    + "at 1.5 s); relock- threads seen waiting on pub/sub: %s%n", acquired, asyncAcquired, took, held);
            assertThat(held).as("relock- threads waiting on a pub/sub call").isEmpty();
            assertThat(acquired).isTrue();
            assertThat(asyncAcquired).isTrue();
            assertThat(took).as("ms to take locks whose lease ended at 1.5 s").isLessThan(1_500 + 800);
        }
    }

    /** The client's threads ({@code relock-} ones) that sleep inside a pub/sub call, each with its stack. */
    private static List<String> threadsWaitingOnPubSub() {
        List<String> waiting = new ArrayList<>();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (!thread.getName().startsWith("relock-") || thread.getState() == Thread.State.RUNNABLE) {
                return;
            }
            for (StackTraceElement frame : stack) {
                String call = frame.getClassName() + "." + frame.getMethodName();
                if (call.contains("ubscri") || call.contains("PubSub")) {
                    waiting.add(thread.getName() + " " + thread.getState() + " " + Arrays.toString(stack));
                    return;
                }
            }
        });
        return waiting;
    }

    /** D2: subscribed, then the pub/sub connection freezes; the wait ends, and its UNSUBSCRIBE gets no answer. */
    @Test
    void aWaiterThatGivesUpIsNotHeldByAnUnansweredUnsubscribe() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            openPubSub(holder, waiter);
            holder.getLock("bk10:leave").lock();
            long start = System.nanoTime();
            CompletableFuture<Boolean> waiting = OwnThread.supply(() -> tryLock(waiter, "bk10:leave", 1));
            awaitSubscribed(waiter, "bk10:leave");
            proxy.freezePubSub(true);
            boolean acquired = waiting.get(20, TimeUnit.SECONDS);
            long took = millisSince(start);
            System.out.printf("D2 sync, UNSUBSCRIBE unanswered: tryLock(1 s)=%s after %d ms%n", acquired, took);
            assertThat(acquired).isFalse();
            assertThat(took).as("ms a 1 s tryLock took").isLessThan(WITHIN_MILLIS);
        }
    }

    /** D2: as above, for a waiter that takes the lock when the holder's lease ends. */
    @Test
    void aWaiterThatAcquiresIsNotHeldByAnUnansweredUnsubscribe() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            openPubSub(holder, waiter);
            assertThat(holder.getLock("bk10:taken").tryLock(0, 1_000, TimeUnit.MILLISECONDS)).isTrue();
            long start = System.nanoTime();
            CompletableFuture<Boolean> waiting = OwnThread.supply(() -> {
                boolean acquired = tryLock(waiter, "bk10:taken", 4);
                if (acquired) {
                    waiter.getLock("bk10:taken").unlock();
                }
                return acquired;
            });
            awaitSubscribed(waiter, "bk10:taken");
            proxy.freezePubSub(true);
            boolean acquired = waiting.get(20, TimeUnit.SECONDS);
            long took = millisSince(start);
            System.out.printf("D2 sync, UNSUBSCRIBE unanswered: tryLock(4 s), lease ends at 1 s, =%s after %d ms%n",
                    acquired, took);
            assertThat(acquired).isTrue();
            assertThat(took).as("ms to take a lock whose lease ended at 1 s").isLessThan(WITHIN_MILLIS);
        }
    }

    /** D2, asynchronous: the future completes once the wait has ended, which leaves the channel. */
    @Test
    void anAsyncWaitThatGivesUpIsNotHeldByAnUnansweredUnsubscribe() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            openPubSub(holder, waiter);
            holder.getLock("bk10:async-leave").lock();
            long start = System.nanoTime();
            CompletableFuture<Boolean> result = waiter.getLock("bk10:async-leave").tryLockAsync(Duration.ofSeconds(1),
                    null, waiter.newOwner());
            awaitSubscribed(waiter, "bk10:async-leave");
            proxy.freezePubSub(true);
            boolean acquired = result.get(20, TimeUnit.SECONDS);
            long took = millisSince(start);
            System.out.printf("D2 async, UNSUBSCRIBE unanswered: tryLockAsync(1 s)=%s after %d ms%n", acquired, took);
            assertThat(acquired).isFalse();
            assertThat(took).as("ms a 1 s tryLockAsync took").isLessThan(WITHIN_MILLIS);
        }
    }

    private static boolean tryLock(RedisLockClient client, String name, long seconds) {
        try {
            return client.getLock(name).tryLock(seconds, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** One command through the proxy, so that the shared data connection is open before new ones freeze. */
    private static void warmDataConnection(RedisLockClient waiter) {
        ReentrantDistributedLock warm = waiter.getLock("bk10:warm");
        assertThat(warm.tryLock()).isTrue();
        warm.unlock();
    }

    /** A first wait, so that the waiter's pub/sub connection is open (and known to the proxy as one). */
    private static void openPubSub(RedisLockClient holder, RedisLockClient waiter) throws InterruptedException {
        ReentrantDistributedLock held = holder.getLock("bk10:opening");
        held.lock();
        try {
            assertThat(waiter.getLock("bk10:opening").tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        }
        finally {
            held.unlock();
        }
    }

    private static void awaitSubscribed(RedisLockClient waiter, String name) throws InterruptedException {
        String channel = waiter.redisKeys(name).releaseChannel();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!redis.server().command("PUBSUB", "NUMSUB", channel).equals(channel + "\n1")) {
            assertThat(System.nanoTime()).as("subscribed to " + channel).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
