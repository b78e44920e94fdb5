package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * What one uncontended lock/unlock pair makes Redis run: Redis is shared by every
 * instance that locks through it, so each command a script runs is paid by all of them.
 */
@Timeout(30)
class ServerWorkTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final int PAIRS = 100;

    @Test
    void anUncontendedPairRunsTwoScriptsOfThirteenCommands() {
        try (RedisLockClient client = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock lock = client.getLock("server-work");
            lock.lock();
            lock.unlock(); // scripts loaded, fencing counter written: what follows is the steady state
            long before = CommandStats.allCalls(redis.commands());
            for (int i = 0; i < PAIRS; i++) {
                lock.lock();
                lock.unlock();
            }
            long perPair = (CommandStats.allCalls(redis.commands()) - before) / PAIRS;
            // acquire: PTTL, MGET counters, EXISTS (the fair lock's hash: no fair counter says it is free), TIME,
            // HSET, PEXPIRE, SET counter; release: GET counter, HDEL, SET, PUBLISH
            assertThat(perPair).isEqualTo(13);
        }
    }

    @Test
    void aBusyAttemptReadsNoFencingCounter() {
        try (RedisLockClient holder = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient other = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock held = holder.getLock("server-work:busy");
            held.lock();
            ReentrantDistributedLock lock = other.getLock("server-work:busy");
            lock.tryLock(); // loads the script
            long before = CommandStats.allCalls(redis.commands());
            assertThat(lock.tryLock()).isFalse();
            // the script, PTTL and HGET (the owner's own field)
            assertThat(CommandStats.allCalls(redis.commands()) - before).isEqualTo(3);
            held.unlock();
        }
    }
}
