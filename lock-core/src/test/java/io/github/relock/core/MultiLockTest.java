package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/** Several locks as one: all or none, a fixed order that cannot deadlock, one wait budget. */
@Timeout(60)
@Tag("redis-version-independent")
class MultiLockTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient client;
    RedisLockClient other;

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).build();
        other = RedisLockClient.builder(redis.newConnectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void locksAreTakenSortedAndOnce() {
        MultiLock both = client.getMultiLock("account:2", "account:1", "account:2");
        assertThat(both.locks()).extracting(ReentrantDistributedLock::getName).containsExactly("account:1", "account:2");
        assertThat(both.getName()).isEqualTo("account:1, account:2");
        both.lock();
        assertThat(both.isHeldByCurrentThread()).isTrue();
        assertThat(other.getLock("account:1").tryLock()).isFalse();
        assertThat(other.getLock("account:2").tryLock()).isFalse();
        both.unlock();
        assertThat(client.getLock("account:1").isLocked()).isFalse();
        assertThat(client.getLock("account:2").isLocked()).isFalse();
    }

    @Test
    void allOrNothingWithinOneWaitBudget() throws Exception {
        ReentrantDistributedLock taken = other.getLock("pair:b");
        taken.lock();
        MultiLock pair = client.getMultiLock("pair:a", "pair:b");
        long started = System.nanoTime();
        assertThat(pair.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(250L, 2_000L);
        assertThat(client.getLock("pair:a").isLocked()).as("the first lock was given back").isFalse();
        assertThat(client.heldLocks()).isEmpty();
        taken.unlock();
        assertThat(pair.tryLock(0, 5, TimeUnit.SECONDS)).isTrue();
        assertThat(client.heldLocks()).allMatch(held -> !held.watchdog());
        pair.unlock();
    }

    @Test
    void opposingOrdersNeverDeadlock() throws Exception {
        CompletableFuture<Void> forward = CompletableFuture.runAsync(() -> transfer(client, "x", "y"));
        CompletableFuture<Void> backward = CompletableFuture.runAsync(() -> transfer(other, "y", "x"));
        CompletableFuture.allOf(forward, backward).get(30, TimeUnit.SECONDS);
    }

    private static void transfer(RedisLockClient by, String from, String to) {
        for (int i = 0; i < 40; i++) {
            MultiLock both = by.getMultiLock(List.of(from, to), null);
            both.lock();
            both.unlock();
        }
    }

    @Test
    void aLostMemberIsReportedAtUnlockAfterTheOthersAreReleased() {
        MultiLock pair = client.getMultiLock("lost:a", "lost:b");
        pair.lock();
        redis.commands().del(client.redisKeys("lost:a").lock());
        assertThatThrownBy(pair::unlock).isInstanceOf(LockLostException.class);
        assertThat(client.getLock("lost:b").isLocked()).isFalse();
    }

    @Test
    void anExplicitOwnerHoldsAllOfThemAcrossThreads() throws Exception {
        LockOwner owner = client.newOwner();
        MultiLock pair = client.getMultiLock(List.of("owned:a", "owned:b"), owner);
        pair.lock();
        CompletableFuture.runAsync(() -> client.getMultiLock(List.of("owned:a", "owned:b"), owner).unlock())
                .get(10, TimeUnit.SECONDS);
        assertThat(client.getLock("owned:a").isLocked()).isFalse();
    }

    @Test
    void settingsTakeALockTheWayTheySay() throws Exception {
        ReentrantDistributedLock lock = client.getLock("settings");
        assertThat(lock.tryLock(new LockSettings(Duration.ZERO, Duration.ofSeconds(5), null))).isTrue();
        assertThat(client.heldLocks().get(0).watchdog()).isFalse();
        lock.unlock();
        assertThatThrownBy(() -> new LockSettings(Duration.ZERO, Duration.ZERO, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThat(LockNames.of("payments", "42")).isEqualTo("payments:42");
        assertThatThrownBy(() -> LockNames.of("acct:audit", "7")).hasMessageContaining("acct.audit");
    }

    @Test
    void anEmptyMultiLockIsRefused() {
        assertThatThrownBy(() -> client.getMultiLock()).isInstanceOf(IllegalArgumentException.class);
    }

    /** A member's lease cannot run out while the multi-lock waits for another, and then be counted as held. */
    @FunctionalInterface
    private interface TakeWithShortLease {
        boolean take(MultiLock pair) throws InterruptedException;
    }

    @Test
    void aLeaseShorterThanTheWaitIsNeverReturnedHeldWhileAnotherClientHoldsAMember() throws Exception {
        assertNeverHeldWhileTheThirdHolds("short:try", pair -> pair.tryLock(5_000, 500, TimeUnit.MILLISECONDS));
    }

    @Test
    void lockWithALeaseShorterThanTheWaitIsNeverReturnedHeldWhileAnotherClientHoldsAMember() throws Exception {
        assertNeverHeldWhileTheThirdHolds("short:lock", pair -> {
            pair.lock(500, TimeUnit.MILLISECONDS);
            return true;
        });
    }

    /**
     * {@code other} holds b for 1.5 s; a third client takes a at 0.8 s, once a 500 ms lease taken on it at the
     * start would have run out, and keeps it for 2 s. Whenever the multi-lock says it holds both, Redis says so.
     */
    private void assertNeverHeldWhileTheThirdHolds(String name, TakeWithShortLease take) throws Exception {
        String a = name + ":a";
        String b = name + ":b";
        assertThat(other.getLock(b).tryLock(0, 1_500, TimeUnit.MILLISECONDS)).isTrue();
        try (RedisLockClient third = RedisLockClient.builder(redis.newConnectionFactory()).build()) {
            long started = System.nanoTime();
            CompletableFuture<Long> thirdTook = CompletableFuture.supplyAsync(() -> {
                try {
                    Thread.sleep(800);
                    assertThat(third.getLock(a).tryLock(5_000, 2_000, TimeUnit.MILLISECONDS)).isTrue();
                    return System.nanoTime();
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            MultiLock pair = client.getMultiLock(a, b);
            boolean held = take.take(pair);
            long returned = System.nanoTime();
            long thirdAt = thirdTook.get(10, TimeUnit.SECONDS);
            System.out.printf("%s: multi-lock returned %s after %d ms; the third client took %s at %d ms%n", name,
                    held, TimeUnit.NANOSECONDS.toMillis(returned - started), a,
                    TimeUnit.NANOSECONDS.toMillis(thirdAt - started));
            assertThat(held).as("taken within the wait").isTrue();
            assertThat(pair.locks()).allMatch(ReentrantDistributedLock::isHeldByCurrentThread);
            assertThat(client.heldLocks()).extracting(HeldLock::name).containsExactlyInAnyOrder(a, b);
            for (HeldLock mine : client.heldLocks()) {
                assertThat(redis.commands().hkeys(mine.key())).as("who holds %s in Redis", mine.name())
                        .containsExactly(mine.ownerId());
            }
            assertThat(returned - thirdAt).as("not returned while the third client's 2 s lease on a runs")
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(2_000) - TimeUnit.MILLISECONDS.toNanos(50));
            pair.unlock();
        }
    }

    @Test
    void aClientClosedWhileItsMultiLockWaitsLeavesNothingInRedis() throws Exception {
        ReentrantDistributedLock taken = other.getLock("closing:b");
        taken.lock();
        RedisLockClient closing = RedisLockClient.builder(redis.newConnectionFactory()).build();
        CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                closing.getMultiLock("closing:a", "closing:b").lock();
                return null;
            }
            catch (Throwable ex) {
                return ex;
            }
        });
        Thread.sleep(500);
        closing.close();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        assertThat(redis.commands().exists(client.redisKeys("closing:a").lock())).as("a given back").isZero();
        assertThat(taken.isLocked()).isTrue();
        taken.unlock();
        assertThat(redis.commands().exists(client.redisKeys("closing:b").lock())).isZero();
    }
}
