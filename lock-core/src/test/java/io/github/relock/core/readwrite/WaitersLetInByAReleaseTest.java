package io.github.relock.core.readwrite;

import static io.github.relock.core.readwrite.LetInClients.hash;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.CommandStats;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * A thread that a read-write lock's release lets in (a reader when the write hold ends, a writer when the last hold
 * ends) holds the lock as the release's announcement arrives: the announcement carries its hold's fencing token, so
 * it sends nothing of its own. The hold it takes up lasts as long as its place in line did (2 s at least from its
 * last attempt), and is renewed before that ends; a waiter with a fixed lease, or an announcement older than the
 * waiter's last attempt, goes through Redis instead.
 */
@Timeout(60)
class WaitersLetInByAReleaseTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final LetInClients clients = new LetInClients(redis);

    /** Long enough that no watchdog round runs while scripts are counted. */
    private static final Duration NO_ROUND_MEANWHILE = Duration.ofSeconds(60);

    @Test
    void aReaderThreadLetInHoldsWithNoScriptOfItsOwnAndItsTokenIsTheOneInRedis() throws Exception {
        // a client name with a space, a line break and a wide character: the announcement carries it whole
        Sides sides = writeHeld("given:plain", "readers of \n größe", NO_ROUND_MEANWHILE);
        ReentrantDistributedLock write = sides.write();
        ReentrantDistributedLock read = sides.read();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Future<Long> reader = clients.pool().submit(() -> {
            read.lock();
            try {
                holding.countDown();
                done.await();
                return read.fencingToken();
            }
            finally {
                read.unlock();
            }
        });
        String field = clients.waitForPlaces("given:plain", 1);
        long before = evalshaCalls();

        write.unlock();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(200); // anything the reader would still send

        assertThat(evalshaCalls() - before).as("scripts: the write release only").isOne();
        done.countDown();
        long token = reader.get(10, TimeUnit.SECONDS);
        assertThat(token).isPositive();
        assertThat(redis.commands().exists(hash("given:plain"))).as("released: nothing left").isZero();
        assertThat(field).contains("größe");
    }

    @Test
    void aWriterThreadGivenTheLockByTheLastReleaseHoldsWithNoScriptOfItsOwn() throws Exception {
        Sides sides = writeHeld("given:writer", "readers", NO_ROUND_MEANWHILE);
        RedisLockClient others = clients.client("other writers", NO_ROUND_MEANWHILE);
        ReentrantDistributedLock next = others.getReadWriteLock("given:writer").writeLock();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Future<Long> writer = clients.pool().submit(() -> {
            next.lock();
            try {
                holding.countDown();
                done.await();
                return next.fencingToken();
            }
            finally {
                next.unlock();
            }
        });
        String field = clients.waitForPlaces("given:writer", 1);
        long before = evalshaCalls();

        sides.write().unlock();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(200);

        assertThat(evalshaCalls() - before).as("scripts: the release only").isOne();
        String inRedis = redis.commands().hget(hash("given:writer"), field + ":t");
        done.countDown();
        assertThat(String.valueOf(writer.get(10, TimeUnit.SECONDS))).isEqualTo(inRedis);
        assertThat(field).endsWith(":w");
    }

    @Test
    void aReaderLetInThatHoldsLongerThanItsPlaceLastedKeepsWritersOut() throws Exception {
        Sides sides = writeHeld("given:long", "readers", Duration.ofSeconds(30)); // rounds every 10 s: none meanwhile
        ReentrantDistributedLock write = sides.write();
        ReentrantDistributedLock read = sides.read();
        CountDownLatch holding = new CountDownLatch(1);
        long[] releasedAt = new long[1];
        Future<Boolean> reader = clients.pool().submit(() -> {
            read.lock();
            try {
                holding.countDown();
                Thread.sleep(3_500); // past the 2 s its place lasted
                return read.isLost();
            }
            finally {
                releasedAt[0] = System.nanoTime();
                read.unlock();
            }
        });
        clients.waitForPlaces("given:long", 1);
        write.unlock();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();

        Future<Long> writer = clients.pool().submit(() -> {
            write.lock();
            long at = System.nanoTime();
            write.unlock();
            return at;
        });

        assertThat(reader.get(10, TimeUnit.SECONDS)).as("the reader's hold lost").isFalse();
        assertThat(writer.get(10, TimeUnit.SECONDS)).as("the writer got in after the reader left")
                .isGreaterThan(releasedAt[0]);
    }

    @Test
    void anAnnouncementFromBeforeTheReadersLastAttemptIsNotTakenUp() throws Exception {
        Sides sides = writeHeld("given:stale", "readers", NO_ROUND_MEANWHILE);
        ReentrantDistributedLock write = sides.write();
        ReentrantDistributedLock read = sides.read();
        Future<Boolean> reader = clients.pool().submit(() -> {
            read.lock();
            boolean writerInside = write.isLocked();
            read.unlock();
            return writerInside;
        });
        String field = clients.waitForPlaces("given:stale", 1);

        // what an announcement heard late says: a hold given before the reader's last attempt, with a lower token
        redis.commands().publish(hash("given:stale") + ":released:readers", "1 " + bytes(field) + " " + field);
        Thread.sleep(500);

        assertThat(reader).as("the reader still waits").isNotDone();
        write.unlock();
        assertThat(reader.get(10, TimeUnit.SECONDS)).as("a writer inside with the reader").isFalse();
    }

    @Test
    void aReaderWithAFixedLeaseTakesItsHoldUpWithAnAttemptForThatLease() throws Exception {
        Sides sides = writeHeld("given:fixed", "readers", NO_ROUND_MEANWHILE);
        ReentrantDistributedLock write = sides.write();
        ReentrantDistributedLock read = sides.read();
        CountDownLatch done = new CountDownLatch(1);
        Future<Duration> reader = clients.pool().submit(() -> {
            if (!read.tryLock(10, 8, TimeUnit.SECONDS)) {
                return Duration.ZERO;
            }
            try {
                done.await();
                return read.remainingLease();
            }
            finally {
                read.unlock();
            }
        });
        clients.waitForPlaces("given:fixed", 1);
        long before = evalshaCalls();

        write.unlock();
        Thread.sleep(300);

        assertThat(evalshaCalls() - before).as("the release, and the reader's take-up").isEqualTo(2);
        done.countDown();
        assertThat(reader.get(10, TimeUnit.SECONDS)).isGreaterThan(Duration.ofSeconds(7));
    }

    @Test
    void readersGivingUpAroundTheReleaseEitherHoldWithTheirTokenInRedisOrLeaveNothing() throws Exception {
        Sides sides = writeHeld("given:edge", "readers", NO_ROUND_MEANWHILE);
        ReentrantDistributedLock write = sides.write();
        RedisLockClient readers = sides.readers();
        int count = 16;
        CountDownLatch answered = new CountDownLatch(count);
        CountDownLatch checked = new CountDownLatch(1);
        List<Future<String>> outcomes = new ArrayList<>();
        long releaseAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800);
        for (int i = 0; i < count; i++) {
            long deadline = releaseAt + TimeUnit.MILLISECONDS.toNanos(i - count / 2);
            outcomes.add(clients.pool().submit(() -> {
                ReentrantDistributedLock read = readers.getReadWriteLock("given:edge").readLock();
                boolean held = read.tryLock(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                try {
                    answered.countDown();
                    if (!held) {
                        return "none";
                    }
                    String thread = Thread.currentThread().getName();
                    String field = readers.heldLocks().stream().filter(h -> thread.equals(h.ownerThread()))
                            .findFirst().orElseThrow().ownerId();
                    String inRedis = redis.commands().hget(hash("given:edge"), field + ":t");
                    checked.await();
                    return String.valueOf(read.fencingToken()).equals(inRedis) ? "held" : "token " + inRedis
                            + " in Redis, " + read.fencingToken() + " here";
                }
                finally {
                    if (held) {
                        read.unlock();
                    }
                }
            }));
        }
        Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(releaseAt - System.nanoTime())));
        write.unlock();
        assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();
        checked.countDown();

        for (Future<String> outcome : outcomes) {
            assertThat(outcome.get(10, TimeUnit.SECONDS)).isIn("held", "none");
        }
        Thread.sleep(200); // the give-backs of readers that gave up
        Map<String, String> left = redis.commands().hgetall(hash("given:edge"));
        assertThat(left).as("holds or places left").isEmpty();
    }

    /** The write lock of {@code name}, held by a client of its own, and the read lock of a readers' client. */
    private record Sides(ReentrantDistributedLock write, RedisLockClient readers, ReentrantDistributedLock read) {
    }

    private Sides writeHeld(String name, String readersName, Duration watchdogTimeout) {
        RedisLockClient readers = clients.client(readersName, watchdogTimeout);
        ReentrantDistributedLock write = clients.client("writers", watchdogTimeout).getReadWriteLock(name).writeLock();
        write.lock();
        return new Sides(write, readers, readers.getReadWriteLock(name).readLock());
    }

    private static int bytes(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    private static long evalshaCalls() {
        return CommandStats.calls(redis.commands(), "evalsha");
    }
}
