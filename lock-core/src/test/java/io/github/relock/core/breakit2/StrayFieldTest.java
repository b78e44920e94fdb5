package io.github.relock.core.breakit2;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A field in the lock hash that no owner of this library wrote (an operator's HSET, another tool).
 *
 * <p>DEFECT (behaviour change of faa9613, passes on 9fce4ff): release.lua:38 now gives back the last hold with
 * HDEL of the owner's own field, on the assumption that the field is the hash's only one. With any other field
 * in the hash, unlock() returns normally, publishes "released", yet the lock stays held BY NOBODY until the hash's
 * TTL runs out (up to the watchdog lease: 30 s by default, or the whole fixed lease). Waiters woken by the
 * publish find it busy (acquire.lua:14 pttl != -2) and sleep out that TTL; isLocked() says true. 9fce4ff's
 * release did DEL of the whole hash and freed it at once.
 */
@Timeout(60)
class StrayFieldTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    RedisLockClient a;
    RedisLockClient b;

    @BeforeEach
    void setUp() {
        a = RedisLockClient.builder(redis.connectionFactory()).build();
        b = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        a.close();
        b.close();
    }

    @Test
    void theLastReleaseFreesTheLockEvenWithAStrayFieldInItsHash() throws Exception {
        ReentrantDistributedLock mine = a.getLock("bk2:stray");
        mine.lock(); // watchdog: the hash lives 30 s at a time
        redis.commands().hset(mine.getKey(), "written-by-an-operator", "1"); // HSET keeps the TTL
        mine.unlock(); // returns normally: the owner believes the lock is free
        Map<String, String> after = redis.commands().hgetall(mine.getKey());
        long pttl = redis.commands().pttl(mine.getKey());
        ReentrantDistributedLock theirs = b.getLock("bk2:stray");
        long start = System.nanoTime();
        boolean got = theirs.tryLock(3, TimeUnit.SECONDS);
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(got)
                .as("after the only owner released, another client waited %d ms and did not get the lock; hash %s "
                        + "with %d ms of TTL left, isLocked=%s", waited, after, pttl, theirs.isLocked())
                .isTrue();
        theirs.unlock();
    }

    @Test
    void isLockedIsFalseRightAfterTheOnlyHoldersUnlockDespiteAStrayField() throws Exception {
        ReentrantDistributedLock mine = a.getLock("bk2:stray-fixed");
        assertThat(mine.tryLock(0, 20, TimeUnit.SECONDS)).isTrue();
        redis.commands().hset(mine.getKey(), "x", "1");
        mine.unlock();
        assertThat(mine.isLocked()).as("isLocked() right after the only holder's unlock, hash %s",
                redis.commands().hgetall(mine.getKey())).isFalse();
    }

    /** Held on both scripts (not a regression): a hash with no TTL written while the lock was free. */
    @Test
    void aHashWithoutTtlWrittenByHandIsBusyForeverButForceUnlockFreesIt() throws Exception {
        ReentrantDistributedLock lock = a.getLock("bk2:no-ttl");
        redis.commands().hset(lock.getKey(), "someone", "1");
        assertThat(lock.tryLock(1500, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(lock.remainingLease()).isNotNull();
        assertThat(lock.forceUnlock()).isTrue();
        assertThat(lock.tryLock()).isTrue();
        assertThat(redis.commands().pttl(lock.getKey())).isPositive();
        lock.unlock();
        assertThat(redis.commands().exists(lock.getKey())).isZero();
    }

    /** The owner's own field, made persistent (PERSIST) by hand while held: release still frees it. */
    @Test
    void aPersistedHashOfTheOwnerIsFreedByItsRelease() throws Exception {
        ReentrantDistributedLock lock = a.getLock("bk2:persisted");
        lock.lock();
        redis.commands().persist(lock.getKey());
        lock.unlock();
        assertThat(redis.commands().exists(lock.getKey())).isZero();
        ReentrantDistributedLock theirs = b.getLock("bk2:persisted");
        assertThat(theirs.tryLock(Duration.ofSeconds(1).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        theirs.unlock();
    }
}
