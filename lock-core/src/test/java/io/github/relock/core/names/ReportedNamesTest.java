package io.github.relock.core.names;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockLostEvent;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Slim keys per hold (name, fence and channel derived from the encoded lock key): what the client reports
 * (heldLocks, lost-lock events) names the lock as given, for odd names and odd prefixes; two handles of one
 * name re-enter one hold; and what two names that encode to one key do.
 */
@Timeout(60)
@Tag("jdk-independent")
class ReportedNamesTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void tearDown() {
        clients.forEach(RedisLockClient::close);
    }

    static final String[] NAMES = {"order:42", "}", "{", "%7D", "%25}%", "{a}:b}", "größe:ß", "emoji \uD83D\uDE00",
            "lone \uD800 surrogate", "trail \uDC00", "x".repeat(1024), "}".repeat(300)};

    @Test
    void heldLocksAndLostEventsNameTheLockAsGivenAndTwoHandlesReenterOneHold() throws Exception {
        for (String prefix : new String[] {"lock:", "ü:%7D:", "x"}) {
            List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
            RedisLockClient a = RedisLockClient.builder(redis.newConnectionFactory()).keyPrefix(prefix)
                    .watchdogTimeout(Duration.ofSeconds(3)).lockLostListener(lost::add).build();
            clients.add(a);
            RedisLockClient b = RedisLockClient.builder(redis.newConnectionFactory()).keyPrefix(prefix).build();
            clients.add(b);
            for (String name : NAMES) {
                ReentrantDistributedLock one = a.getLock(name);
                ReentrantDistributedLock two = a.getLock(new String(name.toCharArray())); // another handle, equal name
                assertThat(one.tryLock()).isTrue();
                assertThat(two.tryLock()).as("re-entry through a second handle of %s", name).isTrue();
                assertThat(two.getHoldCount()).isEqualTo(2);
                assertThat(b.getLock(name).tryLock()).isFalse();
                List<HeldLock> held = a.heldLocks();
                assertThat(held).hasSize(1);
                assertThat(held.get(0).name()).as("prefix %s", prefix).isEqualTo(name);
                assertThat(held.get(0).key()).isEqualTo(one.getKey());
                two.unlock();
                one.unlock();
                assertThat(a.heldLocks()).isEmpty();
                assertThat(redis.commands().exists(one.getKey())).isZero();
            }
            // a loss names the lock as given
            String name = NAMES[8];
            ReentrantDistributedLock lock = a.getLock(name);
            lock.lock();
            assertThat(b.getLock(name).forceUnlock()).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (lost.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(lost).hasSize(1);
            assertThat(lost.get(0).lockName()).isEqualTo(name);
            assertThat(lost.get(0).key()).isEqualTo(lock.getKey());
        }
    }

    /**
     * A lone surrogate encodes as '?' in UTF-8: "a\uD800", "a\uDBFF" and "a?" are one lock in Redis (e.g. names cut
     * from user text in the middle of an emoji). That over-excludes, never lets two in; since s1 the client also
     * treats them as one hold (HoldId compares the key bytes), so a second handle re-enters instead of replacing
     * the first hold in Redis and leaving it lost.
     */
    @Test
    void namesThatEncodeToOneKeyAreOneLock() throws Exception {
        RedisLockClient a = RedisLockClient.builder(redis.newConnectionFactory()).build();
        RedisLockClient b = RedisLockClient.builder(redis.newConnectionFactory()).build();
        clients.add(a);
        clients.add(b);
        ReentrantDistributedLock lone = a.getLock("cut \uD83D");
        ReentrantDistributedLock other = a.getLock("cut ?");
        assertThat(lone.getKey()).isEqualTo(other.getKey());
        assertThat(lone.tryLock()).isTrue();
        long token = lone.fencingToken();
        assertThat(b.getLock("cut \uD83C").tryLock()).as("another client, another lone surrogate").isFalse();
        assertThat(other.tryLock()).isTrue(); // the same lock: a re-entry
        assertThat(other.fencingToken()).isEqualTo(token);
        other.unlock();
        lone.unlock(); // still held until here, not lost
        assertThat(lone.isLocked()).isFalse();
    }
}
