package io.github.relock.core.callbacks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/** Lost-lock listeners run on the executor the user gives, and the client starts no listener thread of its own. */
@Timeout(30)
class LockLostExecutorTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void listenersRunOnTheGivenExecutorAndTheClientStartsNoListenerThread() {
        ExecutorService executor = Executors.newSingleThreadExecutor(task -> new Thread(task, "users-listener"));
        List<String> calledOn = new CopyOnWriteArrayList<>();
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory())
                .watchdogTimeout(Duration.ofMillis(300)).lockLostExecutor(executor)
                .lockLostListener(event -> calledOn.add(Thread.currentThread().getName())).build();
                RedisLockClient other = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("lost-on-users-executor");
            lock.lock();
            assertThat(other.getLock("lost-on-users-executor").forceUnlock()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> !calledOn.isEmpty());
            assertThat(calledOn).containsOnly("users-listener");
            assertThat(Thread.getAllStackTraces().keySet()).noneMatch(thread -> thread.getName()
                    .startsWith("relock-events-" + client.getClientId()));
        }
        finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aNullExecutorIsRefused() {
        assertThatNullPointerException().isThrownBy(() -> RedisLockClient.builder(redis.connectionFactory())
                .lockLostExecutor(null)).withMessageContaining("lockLostExecutor");
    }
}
