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
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServerExtension;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Thousands of tryLockAsync waits, cancelled in bulk (some before, most after they reached Redis): the line
 * key, the subscriptions and the client's local state are cleaned, and another client takes the lock
 * promptly once it is freed.
 */
@Timeout(60)
@Tag("jdk-independent")
class BulkCancelTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void cancelledAsyncWaitsLeaveNothingBehind() throws Exception {
        RedisCommands<String, String> server = redis.commands();
        RedisLockClient holder = RedisLockClient.builder(redis.newConnectionFactory()).build();
        RedisLockClient canceller = RedisLockClient.builder(redis.newConnectionFactory()).build();
        RedisLockClient other = RedisLockClient.builder(redis.newConnectionFactory()).build();
        try {
            for (int round = 0; round < 3; round++) {
                String name = "bk5:cancel:" + round;
                ReentrantDistributedLock held = holder.getLock(name);
                held.lock();
                ReentrantDistributedLock lock = canceller.getLock(name);
                List<CompletableFuture<Boolean>> futures = new ArrayList<>();
                for (int i = 0; i < 3_000; i++) {
                    futures.add(lock.tryLockAsync(Duration.ofSeconds(30), null, canceller.newOwner()));
                    if (round == 1 && i % 500 == 499) {
                        Thread.sleep(50); // let some reach Redis and join the line before the next batch
                    }
                }
                if (round != 0) {
                    Thread.sleep(500); // all asleep
                }
                String turn = held.getKey() + ":turn";
                if (round == 2) {
                    assertThat(server.get(turn)).as("line while waiting").contains(canceller.getClientId());
                }
                futures.forEach(f -> f.cancel(false));
                String channel = canceller.redisKeys(name).releaseChannel();
                assertThat(Probe.eventually(3_000, () -> Probe.numsub(server, channel) == 0))
                        .as("subscribers of %s after the cancels", channel).isTrue();
                assertThat(Probe.eventually(3_000, () -> {
                    String line = server.get(turn);
                    return line == null || !line.contains(canceller.getClientId());
                })).as("round %d: line after the cancels: %s", round, server.get(turn)).isTrue();
                assertThat(canceller.heldLocks()).isEmpty();

                held.unlock();
                ReentrantDistributedLock next = other.getLock(name);
                long t0 = System.nanoTime();
                assertThat(next.tryLock()).as("round %d: free at once after the release", round).isTrue();
                next.unlock();
                // and the cancelling client can take it too
                assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
                lock.unlock();
                assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(500);
                assertThat(server.exists(turn)).as("round %d: line key left", round).isZero();
                assertThat(server.exists(held.getKey())).isZero();
            }
        }
        finally {
            holder.close();
            canceller.close();
            other.close();
        }
    }
}
