package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * The Redis layout the README documents ("How it works"), which operators read with redis-cli. This is the
 * one test that spells the formats out; every other test asks {@link RedisLockClient#redisKeys(String)},
 * {@link ReentrantDistributedLock#getKey()} or {@link RedisLockClient#heldLocks()} where a lock lives.
 */
@Timeout(30)
class RedisLayoutTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aLockIsAHashInAHashTagWithItsFencingCounterAndReleaseChannelBesideIt() {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            // the documented format, written out on purpose
            assertThat(client.redisKeys("order:42")).isEqualTo(new LockRedisKeys("lock:{order:42}",
                    "lock:{order:42}:fence", "lock:{order:42}:released"));
            assertThat(client.getLock("order:42").getKey()).isEqualTo("lock:{order:42}");
        }
    }

    @Test
    void theKeyPrefixStartsEveryKey() {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).keyPrefix("app:lock:")
                .build()) {
            assertThat(client.redisKeys("x")).isEqualTo(new LockRedisKeys("app:lock:{x}", "app:lock:{x}:fence",
                    "app:lock:{x}:released"));
        }
    }

    @Test
    void theHashMapsTheOwnerIdToTheHoldCount() {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("order:42");
            lock.lock();
            lock.lock();
            HeldLock held = client.heldLocks().get(0);
            // documented: a thread's owner id is the client id, a colon and the thread's id
            assertThat(held.ownerId()).isEqualTo(client.getClientId() + ":" + Thread.currentThread().getId());
            assertThat(held.key()).isEqualTo("lock:{order:42}");
            // the nested level is counted in the client: Redis counts the one hold it was sent
            assertThat(redis.commands().hgetall("lock:{order:42}")).isEqualTo(Map.of(held.ownerId(), "1"));
            assertThat(held.holdCount()).isEqualTo(2);
            assertThat(redis.commands().exists("lock:{order:42}:fence")).isOne();
            lock.unlock();
            lock.unlock();
            assertThat(redis.commands().exists("lock:{order:42}")).isZero();
        }
    }
}
