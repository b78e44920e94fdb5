package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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
 * Waits whose pub/sub calls run off the waiter's thread, while the pub/sub connection does not answer: many of them at once, an interrupt
 * or a cancel while the subscribe is under way, and what they leave behind once the connection answers again.
 */
@Timeout(90)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class UnansweredSubscribeTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** Ten waits on ten locks, their SUBSCRIBEs unanswered: asynchronous calls on other locks go on meanwhile. */
    @Test
    void unansweredSubscribesTieUpNoMoreThanOneThreadOfTheAsynchronousCalls() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            openPubSub(holder, waiter);
            proxy.freezePubSub(true);
            List<CompletableFuture<Boolean>> waits = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < 10; i++) {
                String name = "bk10:many:" + i;
                holder.getLock(name).lock();
                waits.add(OwnThread.supply(() -> tryLock(waiter, name, 2)));
                waits.add(waiter.getLock(name).tryLockAsync(Duration.ofSeconds(2), null, waiter.newOwner()));
            }
            Thread.sleep(300);
            long asyncStart = System.nanoTime();
            assertThat(waiter.getLock("bk10:many:free").tryLockAsync(Duration.ofSeconds(1), Duration.ofSeconds(5),
                    waiter.newOwner()).get(10, TimeUnit.SECONDS)).isTrue();
            long freeMillis = millisSince(asyncStart);
            holder.getLock("bk10:many:busy").lock();
            asyncStart = System.nanoTime();
            assertThat(waiter.getLock("bk10:many:busy").tryLockAsync(Duration.ofMillis(300), null,
                    waiter.newOwner()).get(10, TimeUnit.SECONDS)).isFalse();
            long busyMillis = millisSince(asyncStart);
            List<Long> ended = new ArrayList<>();
            for (CompletableFuture<Boolean> wait : waits) {
                assertThat(wait.get(20, TimeUnit.SECONDS)).isFalse();
                ended.add(millisSince(start));
            }
            long allMillis = millisSince(start);
            System.out.println("ms each wait (sync, async, ...) was seen ended: " + ended);
            System.out.printf("20 waits with SUBSCRIBE unanswered: async on a free lock %d ms, 300 ms async wait %d ms, "
                    + "all 2 s waits ended after %d ms%n", freeMillis, busyMillis, allMillis);
            assertThat(freeMillis).as("ms for an async call on a free lock").isLessThan(500);
            assertThat(busyMillis).as("ms a 300 ms async wait took").isLessThan(800);
            assertThat(allMillis).as("ms the 2 s waits took").isLessThan(2_000 + 800);
        }
    }

    /** lockInterruptibly() interrupted while its subscribe is under way: it ends at once, and leaves nothing. */
    @Test
    void anInterruptDuringTheSubscribeEndsTheWaitAndItsSubscriptionGoes() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            warmDataConnection(waiter);
            proxy.freezeNew(true);
            String name = "bk10:interrupt";
            holder.getLock(name).lock();
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread thread = new Thread(() -> {
                try {
                    waiter.getLock(name).lockInterruptibly();
                    outcome.set("acquired");
                }
                catch (Throwable ex) {
                    outcome.set(ex);
                }
            });
            thread.start();
            Thread.sleep(300);
            long start = System.nanoTime();
            thread.interrupt();
            thread.join(5_000);
            long took = millisSince(start);
            System.out.printf("interrupted while subscribing: %s after %d ms%n", outcome.get(), took);
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
            assertThat(took).as("ms to end after the interrupt").isLessThan(500);
            proxy.freezeNew(false); // the opening and the subscribe go through now, after the wait ended
            assertThat(eventuallyUnsubscribed(waiter, name)).as("no subscription left for " + name).isTrue();
            assertThat(waiter.getLock(name).isHeldByCurrentThread()).isFalse();
        }
    }

    /** An asynchronous wait cancelled while its subscribe is under way: nothing is left once it goes through. */
    @Test
    void aCancelDuringTheSubscribeLeavesNoSubscription() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), TIMEOUT)).build()) {
            warmDataConnection(waiter);
            proxy.freezeNew(true);
            String name = "bk10:cancel";
            holder.getLock(name).lock();
            CompletableFuture<Boolean> waiting = waiter.getLock(name).tryLockAsync(Duration.ofSeconds(20), null,
                    waiter.newOwner());
            Thread.sleep(300);
            assertThat(waiting.cancel(true)).isTrue();
            proxy.freezeNew(false);
            assertThat(eventuallyUnsubscribed(waiter, name)).as("no subscription left for " + name).isTrue();
            holder.getLock(name).unlock();
            Thread.sleep(300);
            assertThat(redis.server().command("EXISTS", waiter.redisKeys(name).lock())).isEqualTo("0");
        }
    }

    /** Whether the channel, once subscribed after the thaw (or not at all), has no subscriber within 3 s. */
    private static boolean eventuallyUnsubscribed(RedisLockClient waiter, String name) throws InterruptedException {
        String channel = waiter.redisKeys(name).releaseChannel();
        Thread.sleep(500); // the opening and the SUBSCRIBE held back reach Redis
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (redis.server().command("PUBSUB", "NUMSUB", channel).equals(channel + "\n0")) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    private static boolean tryLock(RedisLockClient client, String name, long seconds) {
        try {
            return client.getLock(name).tryLock(seconds, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void warmDataConnection(RedisLockClient waiter) {
        ReentrantDistributedLock warm = waiter.getLock("bk10:warm");
        assertThat(warm.tryLock()).isTrue();
        warm.unlock();
    }

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

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
