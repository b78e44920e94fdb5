package io.github.relock.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * A command can reach Redis twice: Lettuce re-sends what was in flight when a connection dropped, and
 * the lock retries a release whose reply was lost. Each script must take effect once.
 */
class ReplayedCommandsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    static final LockKeys KEYS = LockKeys.of("lock:", "replay");
    LockCommands commands;

    @BeforeEach
    void setUp() {
        commands = new LockCommands(redis.connectionFactory());
    }

    @Test
    void aReplayedReleaseNeverDecrementsTwice() {
        AcquireReply first = commands.acquire(KEYS, "c:1", 10_000, 0);
        commands.acquire(KEYS, "c:1", 10_000, 1);
        commands.acquire(KEYS, "c:1", 10_000, 2);
        long token = first.value();

        assertThat(commands.release(KEYS, "c:1", token, 3)).isEqualTo(2);
        assertThat(commands.release(KEYS, "c:1", token, 3)).as("same request again").isEqualTo(2);
        assertThat(holds()).isEqualTo("2");

        assertThat(commands.release(KEYS, "c:1", token, 2)).isEqualTo(1);
        assertThat(commands.release(KEYS, "c:1", token, 1)).isEqualTo(0);
        assertThat(commands.release(KEYS, "c:1", token, 1)).as("the last release again").isEqualTo(0);
        assertThat(redis.commands().exists(KEYS.lock())).isZero();
    }

    @Test
    void aStaleReleaseCannotFreeTheSameOwnersNextHold() {
        long oldToken = commands.acquire(KEYS, "c:1", 10_000, 0).value();
        assertThat(commands.release(KEYS, "c:1", oldToken, 1)).isZero();
        long newToken = commands.acquire(KEYS, "c:1", 10_000, 0).value();
        assertThat(newToken).isGreaterThan(oldToken);

        assertThat(commands.release(KEYS, "c:1", oldToken, 1)).as("replay of the old release").isEqualTo(-1);
        assertThat(holds()).isEqualTo("1");
    }

    @Test
    void aReplayedAcquireNeverCountsTwice() {
        AcquireReply first = commands.acquire(KEYS, "c:1", 10_000, 0);
        AcquireReply replay = commands.acquire(KEYS, "c:1", 10_000, 0);
        assertThat(replay.holds()).isEqualTo(1);
        assertThat(replay.value()).as("the replay reports the same token").isEqualTo(first.value());
        commands.acquire(KEYS, "c:1", 10_000, 1);
        assertThat(commands.acquire(KEYS, "c:1", 10_000, 1).holds()).isEqualTo(2);
        assertThat(holds()).isEqualTo("2");
    }

    @Test
    void aNaiveDecrementWouldHaveCountedTwice() {
        // the broken variant: a release that does not compare hold counts loses a hold on replay
        commands.acquire(KEYS, "c:1", 10_000, 0);
        commands.acquire(KEYS, "c:1", 10_000, 1);
        redis.commands().hincrby(KEYS.lock(), "c:1", -1);
        redis.commands().hincrby(KEYS.lock(), "c:1", -1);
        assertThat(holds()).as("one release, sent twice, freed both holds").isEqualTo("0");
    }

    @Test
    void anotherOwnerIsBusyAndLearnsTheRemainingLease() {
        commands.acquire(KEYS, "c:1", 10_000, 0);
        AcquireReply busy = commands.acquire(KEYS, "c:2", 10_000, 0);
        assertThat(busy.acquired()).isFalse();
        assertThat(busy.holdGone()).isFalse();
        assertThat(busy.value()).isBetween(1L, 10_000L);
        long token = Long.parseLong(redis.commands().get(KEYS.fence()));
        assertThat(commands.release(KEYS, "c:2", token, 1)).as("not the owner").isEqualTo(-1);
        assertThat(holds()).isEqualTo("1");
    }

    private String holds() {
        String value = redis.commands().hget(KEYS.lock(), "c:1");
        return value == null ? "0" : value;
    }
}
