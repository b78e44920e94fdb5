package io.github.relock.core.async;

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

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.ChaosProxy;
import io.github.relock.core.reliability.Factories;
import io.github.relock.test.RedisServerExtension;

/**
 * Asynchronous calls cancelled while their acquisition waits for a Redis that does not answer: when Redis
 * answers, each such acquisition took its lock for nobody. The client must give them back, not let them block
 * others for a lease, and not renew them.
 */
@Timeout(60)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class CancelledWhileFrozenTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void acquisitionsCancelledWhileRedisWasFrozenAreGivenBack() throws Exception {
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories();
                RedisLockClient partitioned = RedisLockClient.builder(factories.standalone(proxy.port(),
                        Duration.ofSeconds(5))).watchdogTimeout(LEASE).build();
                RedisLockClient other = RedisLockClient.builder(redis.connectionFactory()).build()) {
            proxy.freeze(true);
            List<CompletableFuture<Boolean>> calls = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    calls.add(partitioned.getLock("cancelled:" + i).tryLockAsync(Duration.ofSeconds(3),
                            i % 2 == 0 ? null : Duration.ofSeconds(10), partitioned.newOwner()));
                }
                Thread.sleep(300);
                calls.forEach(call -> call.cancel(true));
                Thread.sleep(300);
            }
            finally {
                proxy.freeze(false); // the buffered acquisitions now run
            }
            Thread.sleep(500);
            long worst = 0;
            for (int i = 0; i < 6; i++) {
                long start = System.nanoTime();
                ReentrantDistributedLock taken = other.getLock("cancelled:" + i);
                assertThat(taken.tryLock(15, TimeUnit.SECONDS)).isTrue();
                worst = Math.max(worst, (System.nanoTime() - start) / 1_000_000);
                taken.unlock();
            }
            System.out.printf("6 calls cancelled while Redis was frozen: another client waited at most %d ms; "
                    + "the partitioned client holds %s%n", worst, partitioned.heldLocks());
            assertThat(partitioned.heldLocks()).isEmpty();
            assertThat(worst).as("a lock taken for a cancelled call is given back, not kept for its lease")
                    .isLessThan(1_000);
        }
    }
}
