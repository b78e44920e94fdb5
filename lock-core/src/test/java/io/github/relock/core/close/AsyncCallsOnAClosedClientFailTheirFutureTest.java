package io.github.relock.core.close;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * The asynchronous calls of a handle whose client is closed report it through their future, as their Javadoc says
 * ("The future fails with ... IllegalStateException once the client is closed"; only a bad argument throws at the
 * call): code that chains {@code exceptionally} or {@code whenComplete} hears of it, rather than an exception
 * thrown past the chain.
 */
@Timeout(30)
@Tag("jdk-independent")
class AsyncCallsOnAClosedClientFailTheirFutureTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    interface AsyncCall {
        CompletableFuture<?> start();
    }

    @Test
    void tryLockAsyncLockAsyncAndUnlockAsyncFailTheirFuture() throws Exception {
        RedisLockClient client = RedisLockClient.builder(redis.newConnectionFactory()).build();
        ReentrantDistributedLock lock = client.getLock("closed-async:1");
        LockOwner owner = client.newOwner();
        lock.lockAsync(owner).get(5, TimeUnit.SECONDS);
        client.close();

        assertFailsInItsFuture("tryLockAsync", () -> lock.tryLockAsync(Duration.ZERO, null, owner));
        assertFailsInItsFuture("lockAsync", () -> lock.lockAsync(owner));
        assertFailsInItsFuture("unlockAsync", () -> lock.unlockAsync(owner));
    }

    private static void assertFailsInItsFuture(String what, AsyncCall call) throws Exception {
        AtomicReference<CompletableFuture<?>> future = new AtomicReference<>();
        assertThatCode(() -> future.set(call.start())).as("%s returns a future", what).doesNotThrowAnyException();
        Throwable failure = null;
        try {
            future.get().get(5, TimeUnit.SECONDS);
        }
        catch (ExecutionException ex) {
            failure = ex.getCause();
        }
        assertThat(failure).as("%s's future fails", what).isInstanceOf(IllegalStateException.class);
    }
}
