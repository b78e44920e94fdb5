package io.github.relock.core.localview;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockLostException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.Probe;
import io.github.relock.test.RedisServerExtension;

/**
 * A lock force-unlocked through the client that holds it: that client ran the force, so its holder learns of the
 * loss at once, not at the watchdog's next round (30 s by default). Until then the holder was told it still held
 * the lock, and a nested acquisition was counted as a re-entry while another client held the lock: two holders.
 */
@Timeout(30)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ForcedHoldsAreLostInTheirOwnClientTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @ParameterizedTest
    @ValueSource(strings = { "plain", "fair", "write", "read", "read-write", "multi" })
    void theHolderSeesTheLossAndNoReentrySharesTheLock(String kind) throws Exception {
        List<LockLostEvent> heard = new CopyOnWriteArrayList<>();
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory())
                .lockLostListener(heard::add).build();
                RedisLockClient other = RedisLockClient.builder(redis.connectionFactory()).build()) {
            String name = "forced:" + kind;
            Function<RedisLockClient, ReentrantDistributedLock> lockOf = c -> switch (kind) {
                case "fair" -> c.getFairLock(name);
                case "write", "read-write" -> c.getReadWriteLock(name).writeLock();
                case "read" -> c.getReadWriteLock(name).readLock();
                case "multi" -> c.getMultiLock(name + ":a", name + ":b");
                default -> c.getLock(name);
            };
            ReentrantDistributedLock held = lockOf.apply(client);
            held.lock();
            boolean forced = kind.equals("read-write") ? client.getReadWriteLock(name).forceUnlock()
                    : lockOf.apply(client).forceUnlock();
            assertThat(forced).isTrue();

            assertThat(held.isLost()).as("the holder knows its hold was force-unlocked").isTrue();
            ReentrantDistributedLock taken = kind.equals("read") ? other.getReadWriteLock(name).writeLock()
                    : lockOf.apply(other);
            assertThat(taken.tryLock(1, TimeUnit.SECONDS)).isTrue();
            // a nested acquisition is no re-entry into a hold that was force-unlocked: it is told of the loss, or
            // (a multi-lock, whose isLost() gave back its other locks) it is a new hold, which the other client blocks
            boolean reentered;
            try {
                reentered = held.tryLock(0, TimeUnit.SECONDS);
            }
            catch (LockLostException told) {
                reentered = false;
            }
            assertThat(reentered).as("re-entered while another client holds the lock").isFalse();
            assertThat(held.isHeldByCurrentThread()).isFalse();
            taken.unlock();
            assertThat(Probe.eventually(2_000, () -> !heard.isEmpty())).as("the listeners hear of the loss").isTrue();
            assertThat(client.heldLocks()).isEmpty();
        }
    }
}
