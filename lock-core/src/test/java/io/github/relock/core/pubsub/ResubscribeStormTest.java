package io.github.relock.core.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * Many waiters while no pub/sub connection can be opened, commands still working (Redis at maxclients, a
 * proxy that drops new connections): one client tries to open one a few times a second, however many waiters
 * it has, not each waiter every 100 ms, which would be a storm of new connections against a Redis that is
 * already short of them.
 */
@Timeout(30)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ResubscribeStormTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void manyWaitersDoNotEachOpenConnections() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient waiter = RedisLockClient.builder(
                        factories.standalone(proxy.port(), Duration.ofSeconds(1))).build()) {
            ResubscribeCloseTest.warmUp(waiter);
            for (int i = 0; i < 4; i++) {
                holder.getLock("bk7:storm-" + i).lock();
            }
            proxy.refuseNew(true);
            int before = proxy.accepted();
            List<CompletableFuture<Boolean>> waits = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                ReentrantDistributedLock lock = waiter.getLock("bk7:storm-" + (i % 4));
                if (i % 2 == 0) {
                    waits.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return lock.tryLock(2, TimeUnit.SECONDS);
                        }
                        catch (InterruptedException ex) {
                            throw new IllegalStateException(ex);
                        }
                    }, runnable -> new Thread(runnable).start()));
                }
                else {
                    LockOwner owner = waiter.newOwner();
                    waits.add(lock.tryLockAsync(Duration.ofSeconds(2), null, owner));
                }
            }
            for (CompletableFuture<Boolean> wait : waits) {
                assertThat(wait.get(15, TimeUnit.SECONDS)).isFalse();
            }
            int opened = proxy.accepted() - before;
            // 2 s at one try per 100 ms for the client would be about 20; 16 waiters each trying make hundreds
            assertThat(opened).as("connections tried for pub/sub in about 2 s").isLessThan(80);
        }
    }
}
