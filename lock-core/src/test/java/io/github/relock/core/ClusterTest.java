package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.test.RedisClusterSetup;

/** The lock on a 3-primary Redis Cluster: every key of a lock in one slot, locks spread over nodes. */
@Timeout(120)
@Tag("jdk-independent")
class ClusterTest {

    static RedisClusterSetup cluster;
    static LettuceConnectionFactory factory;
    static LettuceConnectionFactory otherFactory;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterSetup.start();
        factory = cluster.newConnectionFactory();
        otherFactory = cluster.newConnectionFactory();
    }

    @AfterAll
    static void stopCluster() {
        factory.destroy();
        otherFactory.destroy();
        cluster.close();
    }

    @Test
    void locksReenterReleaseAndRenewAcrossSlots() throws Exception {
        // 1 s: about 20 per-slot renewal calls a round must fit in a third of it on a loaded 2-core machine
        try (RedisLockClient client = RedisLockClient.builder(factory).watchdogTimeout(Duration.ofSeconds(1)).build()) {
            List<ReentrantDistributedLock> locks = new ArrayList<>();
            Set<Integer> slots = new HashSet<>();
            for (int i = 0; i < 30; i++) {
                ReentrantDistributedLock lock = client.getLock("order:" + i);
                lock.lock();
                lock.lock();
                assertThat(lock.getHoldCount()).isEqualTo(2);
                slots.add(ClusterSlotHashUtil.calculateSlot(lock.getKey()));
                assertThat(ClusterSlotHashUtil.calculateSlot(client.redisKeys(lock.getName()).fence()))
                        .isEqualTo(ClusterSlotHashUtil.calculateSlot(lock.getKey()));
                locks.add(lock);
            }
            assertThat(slots).hasSizeGreaterThan(10);
            Thread.sleep(3_000); // three timeouts: only per-slot renewal batches keep them
            for (ReentrantDistributedLock lock : locks) {
                assertThat(lock.isHeldByCurrentThread()).isTrue();
                lock.unlock();
                lock.unlock();
                assertThat(lock.isLocked()).isFalse();
            }
        }
    }

    /**
     * Braces in a lock name must not move the hash tag: {@code lock:{}evil}} would have an empty tag, so
     * its fence key would land in another slot and every script fail with CROSSSLOT.
     */
    @Test
    void namesWithBracesKeepEveryKeyInOneSlot() throws Exception {
        try (RedisLockClient client = RedisLockClient.builder(factory).build();
                RedisLockClient other = RedisLockClient.builder(otherFactory).build()) {
            for (String name : List.of("}evil", "}", "{", "{}", "a}b{c", "{order:42}", "%7D", "100%")) {
                ReentrantDistributedLock lock = client.getLock(name);
                assertThat(lock.tryLock()).as(name).isTrue();
                assertThat(other.getLock(name).tryLock()).as("%s is exclusive", name).isFalse();
                lock.lock();
                lock.unlock();
                lock.unlock();
                assertThat(lock.isLocked()).as(name).isFalse();
            }
            assertThat(client.getLock("}").getKey()).as("distinct names, distinct keys")
                    .isNotEqualTo(client.getLock("%7D").getKey());
        }
    }

    @Test
    void waitersOnAnotherClientAreWokenByARelease() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (RedisLockClient holder = RedisLockClient.builder(factory).build();
                RedisLockClient waiter = RedisLockClient.builder(otherFactory).build()) {
            ReentrantDistributedLock held = holder.getLock("cluster-wake");
            held.lock();
            long token = held.fencingToken();
            Future<Long> acquired = pool.submit(() -> {
                ReentrantDistributedLock lock = waiter.getLock("cluster-wake");
                assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
                long next = lock.fencingToken();
                lock.unlock();
                return next;
            });
            Thread.sleep(300);
            long releasedAt = System.nanoTime();
            held.unlock();
            assertThat(acquired.get(10, TimeUnit.SECONDS)).isGreaterThan(token);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt)).isLessThan(5_000);
        }
        finally {
            pool.shutdownNow();
        }
    }
}
