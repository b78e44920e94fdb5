package io.github.relock.core.allornone;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.MultiLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServerExtension;

/**
 * A multi-lock whose 1 ms leases run out while its many locks are taken, every round: it pauses between rounds.
 * An interruptible call interrupted then throws at once and holds nothing; {@code lock()} goes on and keeps the
 * interrupt flag; a wait budget ends the call in time.
 */
@Timeout(30)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class MultiLockPausesAnswerInterruptsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final List<String> NAMES = IntStream.range(0, 20).mapToObj(i -> "paused-multi:" + i).toList();

    @Test
    void anInterruptedTryLockThrowsAtOnceAndHoldsNothing() throws Exception {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            MultiLock multi = client.getMultiLock(NAMES.toArray(String[]::new));
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread caller = new Thread(() -> {
                try {
                    outcome.set(multi.tryLock(20_000, 1, TimeUnit.MILLISECONDS));
                }
                catch (Throwable ex) {
                    outcome.set(ex);
                }
            });
            caller.start();
            Thread.sleep(1_500); // the pauses have grown
            long interrupted = System.nanoTime();
            caller.interrupt();
            caller.join(5_000);
            long took = (System.nanoTime() - interrupted) / 1_000_000;
            assertThat(caller.isAlive()).isFalse();
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
            assertThat(took).as("ended soon after the interrupt").isLessThan(500);
            assertThat(client.heldLocks()).isEmpty();
            MultiLock again = client.getMultiLock(NAMES.toArray(String[]::new));
            assertThat(again.tryLock(2, TimeUnit.SECONDS)).as("every lock is free").isTrue();
            again.unlock();
        }
    }

    @Test
    void aWaitBudgetEndsTheRetries() throws Exception {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            MultiLock multi = client.getMultiLock(NAMES.toArray(String[]::new));
            long start = System.nanoTime();
            boolean taken = multi.tryLock(1_500, 1, TimeUnit.MILLISECONDS);
            long took = (System.nanoTime() - start) / 1_000_000;
            if (taken) {
                multi.unlock(); // a round fast enough to keep a 1 ms lease: nothing to show here
                return;
            }
            assertThat(took).as("the 1.5 s budget is kept").isBetween(1_400L, 2_000L);
            assertThat(client.heldLocks()).isEmpty();
        }
    }

    @Test
    void anInterruptedLockGoesOnAndKeepsTheFlag() throws Exception {
        AtomicReference<Object> outcome = new AtomicReference<>();
        AtomicReference<Boolean> flagKept = new AtomicReference<>();
        Thread caller;
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            MultiLock multi = client.getMultiLock(NAMES.toArray(String[]::new));
            caller = new Thread(() -> {
                try {
                    multi.lock(1, TimeUnit.MILLISECONDS);
                    outcome.set("taken");
                }
                catch (Throwable ex) {
                    outcome.set(ex);
                }
                flagKept.set(Thread.currentThread().isInterrupted());
            });
            caller.start();
            Thread.sleep(1_000);
            caller.interrupt();
            Thread.sleep(1_500);
            if (outcome.get() == null) {
                assertThat(caller.isAlive()).as("lock() goes on after an interrupt").isTrue();
            }
        } // closing the client ends the call
        caller.join(5_000);
        assertThat(caller.isAlive()).isFalse();
        assertThat(flagKept.get()).as("the interrupt flag is kept (%s)", outcome.get()).isTrue();
    }
}
