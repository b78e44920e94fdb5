package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

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
            // a lease that runs out, with the counter key gone with it: the clock floor keeps tokens growing
            ReentrantDistributedLock leased = clients.get(0).getLock("fenced");
            assertThat(leased.tryLock(0, 50, TimeUnit.MILLISECONDS)).isTrue();
            tokens.add(leased.fencingToken());
            Thread.sleep(120);
            assertThat(redis.commands().exists("lock:{fenced}:fence")).isZero();
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
}
