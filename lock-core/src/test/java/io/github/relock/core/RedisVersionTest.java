package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/** Names the Redis each surefire run used, so the report shows that both 6.2 and the PATH's version ran. */
class RedisVersionTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void runsOnTheRedisThisRunAskedFor() {
        System.out.println("lock-core tests ran on Redis " + redis.redisVersion());
        if ("embedded".equals(System.getProperty("redis.server.binary"))) {
            assertThat(redis.redisVersion()).startsWith("6.2.");
        }
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("version");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
    }
}
