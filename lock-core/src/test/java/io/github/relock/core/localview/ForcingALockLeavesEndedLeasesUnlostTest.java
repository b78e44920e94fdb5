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
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.LockKinds;
import io.github.relock.test.RedisServerExtension;

/**
 * A lock force-unlocked through a client whose own hold of it had a fixed lease that already ran out: the force
 * ended another client's hold, not that one, which ended as asked. Its owner's next acquisition is a new hold, and
 * no listener hears of a loss.
 */
@Timeout(30)
@Tag("jdk-independent")
@Tag("redis-version-independent")
class ForcingALockLeavesEndedLeasesUnlostTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @ParameterizedTest
    @ValueSource(strings = { "plain", "fair", "write", "read" })
    void aFixedLeaseThatRanOutIsNoLossWhenAnotherHoldIsForced(String kind) throws Exception {
        List<LockLostEvent> heard = new CopyOnWriteArrayList<>();
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory())
                .lockLostListener(heard::add).build();
                RedisLockClient other = RedisLockClient.builder(redis.connectionFactory()).build()) {
            String name = "forced-after-lease:" + kind;
            Function<RedisLockClient, ReentrantDistributedLock> lockOf = c -> LockKinds.of(c, kind, name);
            ReentrantDistributedLock mine = lockOf.apply(client);
            mine.lock(200, TimeUnit.MILLISECONDS);
            Thread.sleep(400); // the lease ends as asked, unreleased
            ReentrantDistributedLock theirs = lockOf.apply(other);
            assertThat(theirs.tryLock(2, TimeUnit.SECONDS)).isTrue();

            assertThat(mine.forceUnlock()).as("the other client's hold was ended").isTrue();

            assertThat(mine.tryLock(2, TimeUnit.SECONDS)).as("a new hold after the force").isTrue();
            mine.unlock();
            Thread.sleep(200); // listeners are told on the client's event thread
            assertThat(heard).as("no loss of this client's holds to hear of").isEmpty();
        }
    }
}
