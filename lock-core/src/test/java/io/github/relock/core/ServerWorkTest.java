package io.github.relock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * What one uncontended lock/unlock pair makes Redis run: Redis is shared by every
 * instance that locks through it, so each command a script runs is paid by all of them.
 *
 * <p>The pair is twelve commands, each there for a reason:
 * <ul>
 * <li>EVALSHA acquire.lua: the one round trip that takes the lock;
 * <li>EXISTS of the lock's hash and the fair lock's hash of the same name: free, and not held as the other kind,
 * in one call (a busy lock then costs a PTTL and an HGETALL more);
 * <li>MGET of the fencing counter and the turns: the last token and whether its hold ended in a release (for
 * retry-safe releases), and whether another client's turn keeps the lock;
 * <li>TIME: the clock floor that keeps tokens increasing when the counter is gone or rolled back;
 * <li>HSET and PEXPIRE: the hold and its lease;
 * <li>SET of the counter: the new token;
 * <li>EVALSHA release.lua: the one round trip that gives it back;
 * <li>MGET of the counter and the turns: the hold's token is still the last one (else a retried or stale
 * release), and who is next;
 * <li>HDEL: the hold, and with it the lock;
 * <li>SET of the counter: marks the hold released, so that a retried release answers 0 and never decrements twice;
 * <li>PUBLISH: the release, for the waiters.
 * </ul>
 */
@Timeout(30)
class ServerWorkTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final int PAIRS = 100;

    @Test
    void anUncontendedPairRunsTwoScriptsOfTwelveCommands() {
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
            // acquire: EXISTS (both kinds' hashes), MGET counter and turns, TIME, HSET, PEXPIRE, SET counter;
            // release: MGET counter and turns, HDEL, SET counter, PUBLISH
            assertThat(perPair).isEqualTo(12);
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
            // the script, EXISTS (both kinds' hashes), PTTL (the holder's lease, for the reply) and HGETALL (the
            // holder, to take a turn behind it)
            assertThat(CommandStats.allCalls(redis.commands()) - before).isEqualTo(4);
            held.unlock();
        }
    }

    @Test
    void aReaderLetInByAWriteReleaseTakesItsHoldUpWithoutReadingTheWholeLock() throws Exception {
        try (RedisLockClient writers = RedisLockClient.builder(redis.connectionFactory()).build();
                RedisLockClient readers = RedisLockClient.builder(redis.connectionFactory()).build()) {
            ReentrantDistributedLock write = writers.getReadWriteLock("server-work:rw").writeLock();
            write.lock();
            ReentrantDistributedLock read = readers.getReadWriteLock("server-work:rw").readLock();
            LockOwner reader = readers.newOwner();
            CompletableFuture<Boolean> waiting = read.tryLockAsync(Duration.ofSeconds(20),
                    null, reader);
            Thread.sleep(300); // its place taken, subscribed and asleep
            long before = CommandStats.calls(redis.commands(), "hgetall");

            write.unlock(); // gives the waiting reader its hold
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();

            // the release reads the hash once to find whom to let in; the reader's take-up reads only its own fields
            assertThat(CommandStats.calls(redis.commands(), "hgetall") - before).isOne();
            read.unlockAsync(reader).get(10, TimeUnit.SECONDS);
        }
    }
}
