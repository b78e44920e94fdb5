package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
 * A lost-lock executor that runs tasks in the calling thread (a direct executor, Spring's SyncTaskExecutor) and
 * a listener that blocks on it hold up neither the renewal of the client's other holds nor its other calls.
 */
@Timeout(60)
@Tag("redis-version-independent")
class DirectListenerExecutorTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aBlockingListenerOnADirectExecutorDoesNotStopRenewal() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch told = new CountDownLatch(1);
        try (RedisLockClient client = RedisLockClient.builder(redis.newConnectionFactory())
                .watchdogTimeout(Duration.ofSeconds(1)).lockLostExecutor(Runnable::run)
                .lockLostListener(event -> {
                    told.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }).build();
                RedisLockClient other = RedisLockClient.builder(redis.newConnectionFactory()).build()) {
            ReentrantDistributedLock dropped = client.getLock("direct:dropped");
            ReentrantDistributedLock kept = client.getLock("direct:kept");
            dropped.lock();
            kept.lock();
            assertThat(other.getLock("direct:dropped").forceUnlock()).isTrue();
            assertThat(told.await(5, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(2_500); // more than two watchdog leases while the listener blocks
            try {
                assertThat(kept.isHeldByCurrentThread()).isTrue();
                assertThat(other.getLock("direct:kept").tryLock()).isFalse();
            }
            finally {
                release.countDown();
            }
            kept.unlock();
        }
    }
}
