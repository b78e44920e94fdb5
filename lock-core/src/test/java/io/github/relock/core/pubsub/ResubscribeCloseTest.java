package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * close() while an asynchronous wait pauses between failed subscriptions (the pub/sub connection cannot be
 * opened, commands work): nothing is subscribed, so closing the subscriptions wakes nobody, and the pause's
 * timer is dropped with the client's timers. The future must still complete.
 */
@Timeout(30)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ResubscribeCloseTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void anAsyncWaitPausedBetweenSubscriptionsEndsWhenTheClientCloses() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build()) {
            RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), Duration.ofSeconds(1)))
                    .build();
            try {
                warmUp(waiter);
                holder.getLock("bk7:close").lock();
                proxy.refuseNew(true); // from now on no pub/sub connection opens
                ReentrantDistributedLock lock = waiter.getLock("bk7:close");
                LockOwner owner = waiter.newOwner();
                CompletableFuture<Boolean> future = lock.tryLockAsync(Duration.ofSeconds(20), null, owner);
                Thread.sleep(700); // several failed subscriptions, and pauses in between
                assertThat(future).isNotDone();
                waiter.close();
                assertThatThrownBy(() -> future.get(5, TimeUnit.SECONDS)).as("the wait ends with the client")
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalStateException.class);
            }
            finally {
                waiter.close();
            }
        }
    }

    @Test
    void aBlockingWaitPausedBetweenSubscriptionsEndsWhenTheClientCloses() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build()) {
            RedisLockClient waiter = RedisLockClient.builder(factories.standalone(proxy.port(), Duration.ofSeconds(1)))
                    .build();
            try {
                warmUp(waiter);
                holder.getLock("bk7:close-sync").lock();
                proxy.refuseNew(true);
                ReentrantDistributedLock lock = waiter.getLock("bk7:close-sync");
                CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
                    try {
                        return lock.tryLock(20, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException | RuntimeException ex) {
                        return ex;
                    }
                });
                Thread.sleep(700);
                assertThat(outcome).isNotDone();
                waiter.close();
                assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
            }
            finally {
                waiter.close();
            }
        }
    }

    /** A lock call first, so that the command connection is open before new connections are cut. */
    static void warmUp(RedisLockClient client) {
        ReentrantDistributedLock warmUp = client.getLock("bk7:warm-up");
        assertThat(warmUp.tryLock()).isTrue();
        warmUp.unlock();
    }
}
