package io.github.relock.core.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.testing.TwoClients;
import io.github.relock.test.RedisServerExtension;

/**
 * A field in the lock hash that no owner of this library wrote (an operator's HSET, another tool). The last
 * release takes only its own field (HDEL: one call that is also the owner check), so such a field keeps the
 * lock busy, held by nobody, until the hash's lease ends; never two owners. The README states it as a limit (the
 * keys are relock's own). A release that deleted the whole hash on the fencing counter's word alone would free
 * another owner's lock for anyone who knew its token (ReplayedCommandsTest guards that), so the limit stays.
 */
@Timeout(60)
@Tag("jdk-independent")
class StrayFieldTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final TwoClients clients = TwoClients.onTheSharedFactory(redis);

    @Test
    void aStrayFieldKeepsTheLockBusyUntilTheHashsLeaseEndsThenTheNextClientGetsIt() throws Exception {
        ReentrantDistributedLock mine = clients.first().getLock("bk2:stray");
        assertThat(mine.tryLock(0, 1_000, TimeUnit.MILLISECONDS)).isTrue();
        redis.commands().hset(mine.getKey(), "written-by-an-operator", "1"); // HSET keeps the TTL
        mine.unlock();
        assertThat(mine.isLocked()).as("the stray field keeps the hash").isTrue();
        ReentrantDistributedLock theirs = clients.second().getLock("bk2:stray");
        assertThat(theirs.tryLock()).as("held by nobody, but busy").isFalse();
        assertThat(theirs.tryLock(5, TimeUnit.SECONDS)).as("free once the hash's lease ended").isTrue();
        assertThat(redis.commands().hgetall(theirs.getKey())).doesNotContainKey("written-by-an-operator");
        theirs.unlock();
    }

    @Test
    void forceUnlockClearsAStrayField() throws Exception {
        ReentrantDistributedLock mine = clients.first().getLock("bk2:stray-fixed");
        assertThat(mine.tryLock(0, 20, TimeUnit.SECONDS)).isTrue();
        redis.commands().hset(mine.getKey(), "x", "1");
        mine.unlock();
        assertThat(mine.forceUnlock()).isTrue();
        assertThat(mine.isLocked()).isFalse();
    }

    /** A hash with no TTL written by hand while the lock was free: busy for ever, until forceUnlock. */
    @Test
    void aHashWithoutTtlWrittenByHandIsBusyForeverButForceUnlockFreesIt() throws Exception {
        ReentrantDistributedLock lock = clients.first().getLock("bk2:no-ttl");
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
        ReentrantDistributedLock lock = clients.first().getLock("bk2:persisted");
        lock.lock();
        redis.commands().persist(lock.getKey());
        lock.unlock();
        assertThat(redis.commands().exists(lock.getKey())).isZero();
        ReentrantDistributedLock theirs = clients.second().getLock("bk2:persisted");
        assertThat(theirs.tryLock(Duration.ofSeconds(1).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        theirs.unlock();
    }
}
