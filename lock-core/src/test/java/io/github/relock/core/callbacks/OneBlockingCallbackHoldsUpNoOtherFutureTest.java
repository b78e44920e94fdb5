package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A callback chained on one lock's future may block (the Javadoc of {@code tryLockAsync} allows it): that holds up
 * its own chain, not the futures of other locks and other clients. Here a callback sleeps 3 s; meanwhile another
 * client's {@code tryLockAsync(0)} on a free lock must complete at once. On a host of two cores or fewer the common
 * pool, where every future completes, has a single worker, which the sleeping callback occupies.
 */
@Timeout(30)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class OneBlockingCallbackHoldsUpNoOtherFutureTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    @Disabled("fails: with a one-worker common pool (<= 2 cores) a callback that sleeps 3 s delays another client's"
            + " free tryLockAsync(0) by 3 s")
    void anotherClientsFutureCompletesWhileACallbackBlocks() throws Exception {
        try (RedisLockClient blocking = RedisLockClient.builder(redis.newConnectionFactory()).build();
                RedisLockClient other = RedisLockClient.builder(redis.newConnectionFactory()).build()) {
            LockOwner blocker = blocking.newOwner();
            LockOwner caller = other.newOwner();
            ReentrantDistributedLock free = other.getLock("cb-blocks:free");
            free.tryLockAsync(Duration.ZERO, null, caller).get(5, TimeUnit.SECONDS); // connections open
            free.unlockAsync(caller).get(5, TimeUnit.SECONDS);

            CountDownLatch inCallback = new CountDownLatch(1);
            CompletableFuture<Void> slow = blocking.getLock("cb-blocks:slow").lockAsync(blocker).thenRun(() -> {
                inCallback.countDown();
                sleep(3_000); // a blocking call of the application: JDBC, HTTP
            });
            assertThat(inCallback.await(5, TimeUnit.SECONDS)).isTrue();

            long start = System.nanoTime();
            assertThat(free.tryLockAsync(Duration.ZERO, null, caller).get(10, TimeUnit.SECONDS)).isTrue();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            free.unlockAsync(caller).get(10, TimeUnit.SECONDS);
            slow.get(10, TimeUnit.SECONDS);
            assertThat(millis).as("a free lock's tryLockAsync(0) while another client's callback sleeps (common pool"
                    + " of %d)", ForkJoinPool.commonPool().getParallelism()).isLessThan(1_000);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
