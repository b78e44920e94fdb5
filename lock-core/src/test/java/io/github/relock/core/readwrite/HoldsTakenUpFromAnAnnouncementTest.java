package io.github.relock.core.readwrite;

import static io.github.relock.core.readwrite.LetInClients.hash;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.HeldLock;
import io.github.relock.core.ReadWriteDistributedLock;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A thread a read-write release lets in, which takes its hold up from the release's announcement, sees that hold as
 * it would see one it took with an attempt: a hold count of 1, itself as the holder, the fencing token Redis records,
 * a lease that has not ended, and one entry in the client's held locks; re-entering and releasing count from there.
 * Its first lease is the 2 s its place lasted at most, and its early renewal gives it the watchdog's lease.
 */
@Tag("redis-version-independent")
@Timeout(60)
class HoldsTakenUpFromAnAnnouncementTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    @Test
    void aReaderLetInSeesItsHoldAsATakenOne() throws Exception {
        seesItsHoldAsATakenOne("taken-up:read", false);
    }

    @Test
    void aWriterLetInSeesItsHoldAsATakenOne() throws Exception {
        seesItsHoldAsATakenOne("taken-up:write", true);
    }

    private void seesItsHoldAsATakenOne(String name, boolean writer) throws Exception {
        RedisLockClient holders = clients.client("holders", Duration.ofSeconds(30));
        RedisLockClient waiters = clients.client("waiters", Duration.ofSeconds(30));
        ReentrantDistributedLock held = holders.getReadWriteLock(name).writeLock();
        held.lock();
        ReadWriteDistributedLock rw = waiters.getReadWriteLock(name);
        ReentrantDistributedLock side = writer ? rw.writeLock() : rw.readLock();
        CountDownLatch seen = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Future<List<Object>> waiter = clients.pool().submit(() -> {
            side.lock();
            try {
                Instant now = Instant.now();
                List<Object> facts = new ArrayList<>();
                facts.add(side.getHoldCount());
                facts.add(side.isHeldByCurrentThread());
                facts.add(side.fencingToken());
                Optional<HeldLock> hold = side.currentHold();
                facts.add(hold.map(HeldLock::holdCount).orElse(-1));
                facts.add(hold.map(HeldLock::fencingToken).orElse(-1L));
                facts.add(hold.map(h -> h.leaseExpiresAt().isAfter(now)).orElse(false));
                facts.add(hold.map(HeldLock::watchdog).orElse(false));
                facts.add(side.remainingLease().compareTo(Duration.ZERO) > 0);
                facts.add(waiters.heldLocks().size());
                facts.add(tokenInRedis(name, side.fencingToken()));
                side.lock();
                facts.add(side.getHoldCount());
                side.unlock();
                facts.add(side.getHoldCount());
                seen.countDown();
                done.await();
                return facts;
            }
            finally {
                side.unlock();
            }
        });
        clients.waitForPlaces(name, 1);
        held.unlock();
        assertThat(seen.await(10, TimeUnit.SECONDS)).isTrue();
        done.countDown();
        List<Object> facts = waiter.get(10, TimeUnit.SECONDS);
        long token = (Long) facts.get(2);
        assertThat(token).isPositive();
        assertThat(facts).as("count, held, token, hold's count, hold's token, lease ahead, watchdog, remaining lease, "
                + "held locks, token in Redis, count re-entered, count after one release")
                .containsExactly(1, true, token, 1, token, true, true, true, 1, true, 2, 1);
        assertThat(waiters.heldLocks()).isEmpty();
        assertThat(redis.commands().exists(hash(name))).as("nothing left").isZero();
    }

    @Test
    void aReaderLetInHasTheWatchdogsLeaseOnceItsEarlyRenewalRan() throws Exception {
        String name = "taken-up:renewed";
        RedisLockClient holders = clients.client("holders", Duration.ofSeconds(30));
        RedisLockClient waiters = clients.client("waiters", Duration.ofSeconds(30));
        ReentrantDistributedLock held = holders.getReadWriteLock(name).writeLock();
        held.lock();
        ReentrantDistributedLock read = waiters.getReadWriteLock(name).readLock();
        Future<long[]> reader = clients.pool().submit(() -> {
            read.lock();
            try {
                long first = read.remainingLease().toMillis();
                Thread.sleep(1_500); // past half of its first 2 s: renewed early
                long renewed = read.remainingLease().toMillis();
                long inRedis = redis.commands().pttl(hash(name));
                String field = read.currentHold().map(h -> h.ownerId()).orElse("?");
                long ends = Long.parseLong(redis.commands().hget(hash(name), field + ":e"));
                List<String> time = redis.commands().time();
                long redisNow = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
                return new long[] { first, renewed, inRedis, ends - redisNow };
            }
            finally {
                read.unlock();
            }
        });
        clients.waitForPlaces(name, 1);
        held.unlock();
        long[] leases = reader.get(10, TimeUnit.SECONDS);
        System.out.printf("taken up: first lease %d ms, %d ms after its renewal; Redis: %d ms, own %d ms%n", leases[0],
                leases[1], leases[2], leases[3]);
        assertThat(leases[0]).as("the first lease: no longer than the place it was given for").isBetween(1L, 2_000L);
        assertThat(leases[1]).as("renewed to the watchdog's lease").isGreaterThan(25_000L);
        assertThat(leases[2]).as("the hash's time to live").isGreaterThan(25_000L);
        assertThat(leases[3]).as("the hold's own end in Redis").isGreaterThan(25_000L);
    }

    /** Whether a hold's {@code :t} field in Redis records {@code token}. */
    private static boolean tokenInRedis(String name, long token) {
        return redis.commands().hgetall(hash(name)).entrySet().stream()
                .anyMatch(e -> e.getKey().endsWith(":t") && e.getValue().equals(String.valueOf(token)));
    }

}
