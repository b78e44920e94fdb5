package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;
import io.lettuce.core.SetArgs;

@Timeout(60)
class FencingTokenTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void tokensStrictlyIncreaseAcrossClientsExpiriesAndRestarts() throws Exception {
        List<RedisLockClient> clients = List.of(RedisLockClient.builder(redis.connectionFactory()).build(),
                RedisLockClient.builder(redis.newConnectionFactory()).build(),
                RedisLockClient.builder(redis.newConnectionFactory()).build());
        List<Long> tokens = new ArrayList<>();
        try {
            for (int i = 0; i < 300; i++) {
                ReentrantDistributedLock lock = clients.get(i % 3).getLock("fenced");
                lock.lock();
                tokens.add(lock.fencingToken());
                lock.unlock();
            }
            // a lease that runs out: the counter outlives it, so the next token still follows the last
            ReentrantDistributedLock leased = clients.get(0).getLock("fenced");
            assertThat(leased.tryLock(0, 50, TimeUnit.MILLISECONDS)).isTrue();
            tokens.add(leased.fencingToken());
            Thread.sleep(120);
            ReentrantDistributedLock next = clients.get(1).getLock("fenced");
            next.lock();
            tokens.add(next.fencingToken());
            next.unlock();
        }
        finally {
            clients.forEach(RedisLockClient::close);
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d", i).isGreaterThan(tokens.get(i - 1));
        }
    }

    /**
     * The counter must not go with the lease: once it is gone, tokens come from the server's clock, and a
     * node whose clock is behind the one that issued the last token (say, after a failover) would hand
     * out a smaller one.
     */
    @Test
    void theCounterOutlivesTheLeaseSoAClockBehindCannotTakeTokensBack() throws Exception {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient other = RedisLockClient.builder(redis.newConnectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("clock-behind");
            assertThat(lock.tryLock(0, 50, TimeUnit.MILLISECONDS)).isTrue();
            // the last token came from a primary whose clock ran an hour ahead of this node's
            long ahead = lock.fencingToken() + TimeUnit.HOURS.toMicros(1);
            redis.commands().set(client.redisKeys("clock-behind").fence(), Long.toString(ahead),
                    SetArgs.Builder.keepttl());
            Thread.sleep(150); // the lease ends unreleased
            assertThat(lock.isLost()).isTrue();

            ReentrantDistributedLock next = other.getLock("clock-behind");
            next.lock();
            assertThat(next.fencingToken()).as("the token after an hour-ahead one").isGreaterThan(ahead);
            next.unlock();
        }
    }

    /**
     * The token is the later of the clock (µs) and the last token + 1, and while the clock leads the two are
     * compared as text: a counter ahead of the clock with as many digits, or with one more, must still lead the
     * next token, and one far behind must not hold it back.
     */
    @Test
    void theNextTokenFollowsACounterAheadOfTheClockWhateverItsLength() {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            long clock = tokenAfter(client, "ahead:clock", null);
            long sameLength = 9_000_000_000_000_000L; // 16 digits, as the clock's µs until 2286; below 2^53
            assertThat(Long.toString(sameLength)).hasSameSizeAs(Long.toString(clock));
            assertThat(tokenAfter(client, "ahead:same-length", sameLength)).isEqualTo(sameLength + 1);
            // a digit more, and smaller as text ("1000..." < "17..."): the counter leads (Lua's doubles end exact
            // integers at 2^53, so the token may equal it, never fall below it)
            long longer = 10_000_000_000_000_000L;
            assertThat(tokenAfter(client, "ahead:longer", longer)).isGreaterThanOrEqualTo(longer);
            // a digit fewer, and larger as text: the clock leads
            assertThat(tokenAfter(client, "behind:shorter", 999_999_999_999_999L)).isGreaterThan(clock);
        }
    }

    /** The token of a first acquisition of {@code name} after its counter was set to {@code last} (released). */
    private static long tokenAfter(RedisLockClient client, String name, Long last) {
        if (last != null) {
            redis.commands().set(client.redisKeys(name).fence(), last + ":" + last + ":1");
        }
        ReentrantDistributedLock lock = client.getLock(name);
        lock.lock();
        try {
            return lock.fencingToken();
        }
        finally {
            lock.unlock();
        }
    }

    @Test
    void theCounterIsKeptForTheConfiguredRetention() {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory())
                .fencingTokenRetention(Duration.ofHours(2)).build()) {
            ReentrantDistributedLock lock = client.getLock("retained");
            lock.lock();
            lock.unlock();
            assertThat(redis.commands().pttl(client.redisKeys("retained").fence()))
                    .isBetween(Duration.ofHours(2).minusMinutes(1).toMillis(), Duration.ofHours(2).toMillis());
            assertThat(client.getFencingTokenRetention()).isEqualTo(Duration.ofHours(2));
        }
    }

    @Test
    void aRetentionOutsideOneSecondTo365DaysIsRefused() {
        assertThatThrownBy(() -> RedisLockClient.builder(redis.connectionFactory())
                .fencingTokenRetention(Duration.ofMillis(999))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencingTokenRetention");
        assertThatThrownBy(() -> RedisLockClient.builder(redis.connectionFactory())
                .fencingTokenRetention(Duration.ofDays(366))).isInstanceOf(IllegalArgumentException.class);
    }
}
