package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A lost-lock listener that blocks (a slow alert, a lock of its own) holds up neither the renewal of the
 * client's other holds nor the reports of their losses, and close() still ends it and the client's threads.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class BlockingListenerTest {

    private static final Duration WATCHDOG = Duration.ofMillis(1_500); // renewal every 500 ms

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** A loss found by a renewal round is reported inside the round, whose guard still watches the others. */
    @Test
    void aListenerBlockingOnALossARenewalFoundStillLetsTheOtherHoldersBeTold() throws Exception {
        assertNoSilentOverlap(false);
    }

    /** A hold past its max-hold is reported outside any renewal round: nothing watches the others then. */
    @Test
    void aListenerBlockingOnAMaxHoldLossStillLetsTheOtherHoldersBeTold() throws Exception {
        assertNoSilentOverlap(true);
    }

    private static void assertNoSilentOverlap(boolean maxHold) throws Exception {
        CountDownLatch inListener = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (RedisLockClient holder = RedisLockClient.builder(redis.newConnectionFactory()).watchdogTimeout(WATCHDOG)
                .lockLostListener(event -> {
                    inListener.countDown();
                    awaitUninterruptibly(release, 6_000);
                }).build();
                RedisLockClient rival = RedisLockClient.builder(redis.newConnectionFactory()).build()) {
            ReentrantDistributedLock kept = holder.getLock("kept");
            ReentrantDistributedLock dropped = maxHold ? holder.getLock("dropped").withMaxHold(Duration.ofMillis(700))
                    : holder.getLock("dropped");
            kept.lock();
            dropped.lock();
            if (!maxHold) {
                assertThat(rival.getLock("dropped").forceUnlock()).isTrue();
            }
            assertThat(inListener.await(5, TimeUnit.SECONDS)).as("the loss of 'dropped' reported").isTrue();
            long start = System.nanoTime();
            boolean rivalGot = rival.getLock("kept").tryLock(4, 10, TimeUnit.SECONDS);
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            boolean holderThinksItHolds = !kept.isLost();
            release.countDown();
            System.out.printf("listener blocked (%s): rival got 'kept' %s after %d ms, its holder then told lost: %s%n",
                    maxHold ? "max-hold" : "force-unlock", rivalGot, waited, !holderThinksItHolds);
            assertThat(rivalGot && holderThinksItHolds).as("two owners of 'kept': rival in after %d ms, holder not told",
                    waited).isFalse();
        }
    }

    /**
     * close() while a listener sleeps (interruptibly) on a loss: close() ends in a bounded time and no thread of
     * the client outlives it: close() interrupts the listeners' own thread.
     */
    @Test
    void closeEndsAListenerThatWaitsAndLeavesNoThread() throws Exception {
        CountDownLatch inListener = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        RedisLockClient holder = RedisLockClient.builder(redis.newConnectionFactory()).watchdogTimeout(WATCHDOG)
                .lockLostListener(event -> {
                    inListener.countDown();
                    try {
                        Thread.sleep(30_000);
                    }
                    catch (InterruptedException ex) {
                        interrupted.countDown();
                    }
                }).build();
        try (RedisLockClient rival = RedisLockClient.builder(redis.newConnectionFactory()).build()) {
            holder.getLock("closed").lock();
            assertThat(rival.getLock("closed").forceUnlock()).isTrue();
            assertThat(inListener.await(5, TimeUnit.SECONDS)).isTrue();
            long start = System.nanoTime();
            holder.close();
            long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            Thread.sleep(200);
            List<String> left = new ArrayList<>();
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                if (thread.isAlive() && thread.getName().contains(holder.getClientId())) {
                    left.add(thread.getName());
                }
            }
            System.out.printf("close() with a listener asleep: %d ms, threads left %s, listener interrupted %s%n",
                    closeMillis, left, interrupted.getCount() == 0);
            assertThat(closeMillis).isLessThan(2_000);
            assertThat(left).as("threads of the closed client").isEmpty();
        }
        finally {
            holder.close();
        }
    }

    /**
     * close() while a listener ignores interrupts: close() ends in a bounded time; only the listener's own thread is
     * left, and only until the listener returns (when listeners ran on the watchdog thread, close() waited 5 s
     * for it and left the watchdog thread behind).
     */
    @Test
    void closeEndsWhileAListenerIgnoresInterruptsAndOnlyItsThreadWaitsForIt() throws Exception {
        CountDownLatch inListener = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RedisLockClient holder = RedisLockClient.builder(redis.newConnectionFactory()).watchdogTimeout(WATCHDOG)
                .lockLostListener(event -> {
                    inListener.countDown();
                    awaitUninterruptibly(release, 20_000);
                }).build();
        try (RedisLockClient rival = RedisLockClient.builder(redis.newConnectionFactory()).build()) {
            holder.getLock("stubborn").lock();
            assertThat(rival.getLock("stubborn").forceUnlock()).isTrue();
            assertThat(inListener.await(5, TimeUnit.SECONDS)).isTrue();
            long start = System.nanoTime();
            holder.close();
            long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            List<String> left = threadsOf(holder.getClientId());
            release.countDown();
            Thread.sleep(300);
            List<String> afterListener = threadsOf(holder.getClientId());
            System.out.printf("close() with a listener ignoring interrupts: %d ms, threads left %s, after it returned %s%n",
                    closeMillis, left, afterListener);
            assertThat(closeMillis).isLessThan(2_000);
            assertThat(left).allMatch(name -> name.startsWith("relock-events-"));
            assertThat(afterListener).isEmpty();
        }
        finally {
            release.countDown();
            holder.close();
        }
    }

    private static List<String> threadsOf(String clientId) {
        List<String> names = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.isAlive() && thread.getName().contains(clientId)) {
                names.add(thread.getName());
            }
        }
        return names;
    }

    private static void awaitUninterruptibly(CountDownLatch latch, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (latch.getCount() > 0 && deadline - System.nanoTime() > 0) {
            try {
                latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            catch (InterruptedException ex) {
                // a listener that does not answer interrupts: close() must still end
            }
        }
    }
}
