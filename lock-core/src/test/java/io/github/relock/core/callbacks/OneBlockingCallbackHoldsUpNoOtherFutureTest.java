package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
 * A callback that blocks should hold up at most its own client. Here a callback of one client sleeps 3 s; meanwhile
 * another client's {@code tryLockAsync(0)} on a free lock should complete at once. The futures complete on the JVM's
 * common pool, which on a host of two cores or fewer has a single worker that the sleeping callback occupies (unless
 * the pool has spare workers from earlier managed blocking): a known limit, documented on {@code tryLockAsync}.
 */
@Timeout(30)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class OneBlockingCallbackHoldsUpNoOtherFutureTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    @Disabled("a known limit: on a host of two cores or fewer the common pool's one worker runs every completion")
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
            assertThat(millis).as("a free lock's tryLockAsync(0) while another client's callback sleeps")
                    .isLessThan(1_000);
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
