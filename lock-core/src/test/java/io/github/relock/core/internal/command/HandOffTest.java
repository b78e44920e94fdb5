package io.github.relock.core.internal.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.core.HeldLock;
import io.github.relock.core.LockLostException;
import io.github.relock.core.LockOperationException;
import io.github.relock.core.LockOwner;
import io.github.relock.core.LockRedisKeys;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.internal.kind.LockKeys;
import io.github.relock.test.RedisServerExtension;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * Local hand-off: a thread giving back its last hold while another thread of the same client sleeps
 * on the lock moves the hold to it in one script call. These tests aim at the races around that move.
 * Some make the move slow on purpose (the releaser's thread sleeps before sending it) so that a timeout
 * or an interrupt lands while the hold is on its way.
 */
@Timeout(120)
@Tag("jdk-independent")
class HandOffTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** A transfer that takes this long is sure to be in flight when the waiter's deadline or interrupt comes. */
    static final long SLOW_TRANSFER_MILLIS = 300;

    RedisLockClient client;
    final List<RedisLockClient> others = new ArrayList<>();
    final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() {
        client = RedisLockClient.builder(redis.connectionFactory()).build();
    }

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
        client.close();
        others.forEach(RedisLockClient::close);
    }

    @Test
    void theLastReleaseHandsTheLockToASleepingLocalWaiterWithANewerTokenAndNoAnnouncement() throws Exception {
        ReentrantDistributedLock held = client.getLock("plain");
        held.lock();
        held.lock(); // re-entered: only the last release may hand it over
        long oldToken = held.fencingToken();
        AtomicLong waiterToken = new AtomicLong();
        Thread waiter = start(() -> {
            ReentrantDistributedLock lock = client.getLock("plain");
            lock.lock();
            waiterToken.set(lock.fencingToken());
            lock.unlock();
        });
        awaitAsleep(waiter);
        long published = publishedMessages();
        held.unlock();
        Thread.sleep(200);
        assertThat(waiter.isAlive()).as("one release of two holds hands nothing over").isTrue();
        assertThat(held.getHoldCount()).isEqualTo(1);
        held.unlock();
        waiter.join(5_000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(waiterToken.get()).isGreaterThan(oldToken);
        assertThat(publishedMessages() - published).as("the hand-off announced nothing").isLessThanOrEqualTo(1);
        assertThat(redis.commands().exists(keys("plain").lock())).isZero();
    }

    @Test
    void aHandedOverWatchdogHoldIsRenewedForItsNewOwner() throws Exception {
        RedisLockClient shortWatchdog = RedisLockClient.builder(redis.connectionFactory())
                .watchdogTimeout(Duration.ofMillis(600)).build();
        others.add(shortWatchdog);
        ReentrantDistributedLock held = shortWatchdog.getLock("renewed");
        held.lock();
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Boolean> stillHeld = new AtomicReference<>();
        Thread waiter = start(() -> {
            ReentrantDistributedLock lock = shortWatchdog.getLock("renewed");
            lock.lock();
            awaitLatch(release);
            stillHeld.set(lock.isHeldByCurrentThread() && !lock.isLost());
            lock.unlock();
        });
        awaitAsleep(waiter);
        held.unlock();
        Thread.sleep(2_000); // more than three leases
        assertThat(redis.commands().hgetall(keys("renewed").lock())).containsOnlyKeys(ownerOf(shortWatchdog, waiter));
        release.countDown();
        waiter.join(5_000);
        assertThat(stillHeld.get()).isTrue();
        assertThat(shortWatchdog.heldLocks()).isEmpty();
    }

    /**
     * The old owner's renewal stops before the hold moves: a renewal of the old owner that ran after the
     * move would find its hold gone and report a lock as lost that was merely handed over.
     */
    @Test
    @Tag("redis-version-independent")
    void handOffsUnderAFastWatchdogReportNoLostLocks() throws Exception {
        RedisLockClient fastWatchdog = RedisLockClient.builder(redis.connectionFactory())
                .watchdogTimeout(Duration.ofMillis(150)).build(); // renews every 50 ms
        others.add(fastWatchdog);
        AtomicInteger lost = new AtomicInteger();
        fastWatchdog.addLockLostListener(event -> lost.incrementAndGet());
        AtomicInteger acquisitions = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        List<Future<?>> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(pool.submit(() -> {
                ReentrantDistributedLock lock = fastWatchdog.getLock("fast-watchdog");
                while (System.nanoTime() < end) {
                    lock.lock();
                    acquisitions.incrementAndGet();
                    Thread.sleep(1);
                    lock.unlock();
                }
                return null;
            }));
        }
        for (Future<?> thread : threads) {
            thread.get(30, TimeUnit.SECONDS);
        }
        assertThat(acquisitions.get()).isGreaterThan(100);
        assertThat(lost.get()).isZero();
        assertThat(fastWatchdog.heldLocks()).isEmpty();
    }

    @Test
    void aHandOffGivesTheWaiterTheLeaseItAskedFor() throws Exception {
        ReentrantDistributedLock held = client.getLock("lease");
        held.lock(); // watchdog lease: 30 s
        CountDownLatch release = new CountDownLatch(1);
        Thread waiter = start(() -> {
            ReentrantDistributedLock lock = client.getLock("lease");
            if (lock.tryLock(10_000, 700, TimeUnit.MILLISECONDS)) {
                awaitLatch(release);
            }
        });
        awaitAsleep(waiter);
        held.unlock();
        String lease = keys("lease").lock();
        await().atMost(Duration.ofSeconds(2)).until(() -> client.heldLocks().stream()
                .anyMatch(h -> waiter.getName().equals(h.ownerThread()))
                && redis.commands().hexists(lease, ownerOf(client, waiter)));
        assertThat(redis.commands().pttl(lease)).isBetween(1L, 700L);
        // a fixed lease is not renewed: it ends on its own
        await().atMost(Duration.ofSeconds(3)).until(() -> redis.commands().exists(lease) == 0);
        release.countDown();
    }

    @Test
    void anExplicitOwnerWaiterGetsTheLockAndReleasesItFromAnotherThread() throws Exception {
        ReentrantDistributedLock held = client.getLock("owner");
        held.lock();
        LockOwner owner = client.newOwner();
        Future<Long> acquired = pool.submit(() -> {
            ReentrantDistributedLock lock = client.getLock("owner", owner);
            lock.lock();
            return lock.fencingToken();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> client.heldLocks().size() == 1
                && releaseListeners("owner") == 1);
        Thread.sleep(100);
        held.unlock();
        long token = acquired.get(5, TimeUnit.SECONDS);
        assertThat(redis.commands().hgetall(keys("owner").lock())).containsOnlyKeys(owner.id());
        // released on another thread than the one that waited
        pool.submit(() -> client.getLock("owner", owner).unlock()).get(5, TimeUnit.SECONDS);
        assertThat(token).isPositive();
        assertThat(redis.commands().exists(keys("owner").lock())).isZero();
    }

    /** Over maxmemory Redis refuses transfer.lua at its first write; a plain release (a delete) still goes through. */
    @Test
    void aRefusedHandOffFallsBackToAPlainRelease() throws Exception {
        ReentrantDistributedLock held = client.getLock("full");
        held.lock();
        Thread waiter = start(() -> {
            ReentrantDistributedLock lock = client.getLock("full");
            try {
                lock.lock();
                lock.unlock();
            }
            catch (LockOperationException refusedToo) {
                // its own acquire is refused while Redis is full
            }
        });
        awaitAsleep(waiter);
        redis.commands().configSet("maxmemory", "1");
        try {
            held.unlock();
            assertThat(redis.commands().exists(keys("full").lock())).isZero();
        }
        finally {
            redis.commands().configSet("maxmemory", "0");
        }
        waiter.join(10_000);
        assertThat(waiter.isAlive()).isFalse();
    }

    /**
     * Who goes next is the lock's line: once a client's turn is used up, its hand-off gives the lock to the first
     * other client in line (kept for it, named in the announcement) and puts the releasing client at the back;
     * with nobody else in line the hold moves on inside the client, whoever else listens on the channel.
     */
    @Test
    void aUsedUpTurnGivesTheLockToTheLineAndPutsTheClientAtItsBack() throws InterruptedException {
        LockCommands commands = new LockCommands(redis.connectionFactory());
        LockKeys keys = LockKeys.of("lock:", "turn-" + System.nanoTime());
        String line = keys.lock() + ":turn";

        long token = commands.acquire(keys, "a:1", 10_000, 0).join().value();
        redis.commands().psetex(line, 10_000, "b:a:c:");
        try (Listener heard = listen(keys.channel())) {
            assertThat(commands.transfer(keys, "a:1", token, "a:2", 10_000, true).join()).as("went to the line")
                    .isZero();
            // kept for the first in line for one turn (and gone once that turn lapses)
            assertThat(redis.commands().pttl(line)).isLessThanOrEqualTo(LockCommands.TURN_MILLIS);
            assertThat(heard.next()).as("b named first, a moved to the back").isEqualTo("+b:c:a:");
        }
        assertThat(redis.commands().exists(keys.lock())).as("held by nobody meanwhile").isZero();

        // the line holds only the releasing client: the hold moves on inside it
        redis.commands().del(line);
        token = commands.acquire(keys, "a:1", 10_000, 0).join().value();
        redis.commands().psetex(line, 10_000, "a:");
        assertThat(commands.transfer(keys, "a:1", token, "a:2", 10_000, true).join()).isGreaterThan(token);
        assertThat(redis.commands().hgetall(keys.lock())).isEqualTo(Map.of("a:2", "1"));

        // nobody in line: a turn used up changes nothing, whoever else listens on the release channel
        redis.commands().del(line, keys.lock());
        token = commands.acquire(keys, "a:1", 10_000, 0).join().value();
        try (Listener other = listen(keys.channel())) {
            assertThat(commands.transfer(keys, "a:1", token, "a:2", 10_000, true).join()).isGreaterThan(token);
        }
        assertThat(redis.commands().hgetall(keys.lock())).isEqualTo(Map.of("a:2", "1"));
    }

    /**
     * A fair lock hands over only to the head of its line: a release with the head waiting in the same client moves
     * the hold to it in that one call, and leaves the line; a local waiter behind another client's waiter does not
     * get it, and the lock is released to the head, by name.
     */
    @Test
    void aFairLockHandsOverOnlyToTheHeadOfItsLine() throws InterruptedException {
        LockCommands commands = new LockCommands(redis.connectionFactory());
        LockKeys keys = io.github.relock.core.internal.kind.FairKind.keys("lock:", "fair-" + System.nanoTime());
        var kind = keys.kind();
        java.util.function.BiFunction<String, Boolean, AcquireReply> attempt = (owner, waits) -> kind.acquire(commands,
                keys, owner.getBytes(StandardCharsets.UTF_8), 10_000, 0, -1, waits, 0).join();
        long token = attempt.apply("a:1", false).value();
        assertThat(attempt.apply("a:2", true).acquired()).isFalse(); // first in line
        assertThat(attempt.apply("b:1", true).acquired()).isFalse(); // behind it
        String line = keys.lock() + ":line";

        long handed = kind.transfer(commands, keys, "a:1", token, "a:2", 10_000, false).join();
        assertThat(handed).as("the head of the line, waiting here, got it").isGreaterThan(token);
        assertThat(redis.commands().hgetall(keys.lock())).isEqualTo(Map.of("a:2", "1"));
        assertThat(redis.commands().zrange(line, 0, -1)).as("it left the line").containsExactly("b:1");

        try (Listener heard = listen(keys.channel())) {
            assertThat(kind.transfer(commands, keys, "a:2", handed, "a:3", 10_000, false).join())
                    .as("a local waiter behind another client's does not get it").isZero();
            assertThat(redis.commands().exists(keys.lock())).isZero();
            assertThat(heard.next()).as("released to the head, by name").isEqualTo("b:1");
        }
        assertThat(attempt.apply("b:1", true).acquired()).as("the head takes it").isTrue();
    }

    /** Control: a transfer without its checks, sent twice, moves twice (new token) and counts the new owner twice. */
    @Test
    void aRetriedTransferNeverAppliesTwice() {
        assertThat(retriedTransfer()).as("real transfer.lua").isEqualTo("applied once");
        try (Swap broken = swap(LuaScript.TRANSFER, transferWithoutChecks())) {
            assertThat(retriedTransfer()).as("control without checks").isNotEqualTo("applied once");
        }
    }

    private String retriedTransfer() {
        LockCommands commands = new LockCommands(redis.connectionFactory());
        LockKeys keys = LockKeys.of("lock:", "retry-" + System.nanoTime());
        long token = commands.acquire(keys, "c:1", 10_000, 0).join().value();
        long first = commands.transfer(keys, "c:1", token, "c:2", 10_000, false).join();
        Map<String, String> after = redis.commands().hgetall(keys.lock());
        long second = commands.transfer(keys, "c:1", token, "c:2", 10_000, false).join();
        Map<String, String> afterRetry = redis.commands().hgetall(keys.lock());
        assertThat(first).isGreaterThan(token);
        assertThat(after).isEqualTo(Map.of("c:2", "1"));
        if (second != first || !afterRetry.equals(after)
                || !redis.commands().get(keys.fence()).startsWith(first + ":")) {
            return "applied twice: second reply " + second + ", hash " + afterRetry;
        }
        // a replay long after, when the new owner has released, finds nothing to move either
        assertThat(commands.release(keys, "c:2", first, 1).join()).isZero();
        // (it may answer 0, "freed": the old hold did end cleanly; what matters is that nothing moves)
        if (commands.transfer(keys, "c:1", token, "c:2", 10_000, false).join() > 0
                || redis.commands().exists(keys.lock()) != 0) {
            return "a stale replay moved the lock again";
        }
        return "applied once";
    }

    @Test
    void aLostLockIsNotHandedOverAndItsReleaseReportsTheLoss() throws Exception {
        assertThat(lostLockOutcome()).as("real transfer.lua").isEqualTo("refused");
        try (Swap broken = swap(LuaScript.TRANSFER, transferWithoutChecks())) {
            assertThat(lostLockOutcome()).as("control without checks").isNotEqualTo("refused");
        }
    }

    private String lostLockOutcome() throws Exception {
        String name = "lost-" + System.nanoTime();
        RedisLockClient rival = RedisLockClient.builder(redis.newConnectionFactory()).build();
        others.add(rival);
        ReentrantDistributedLock held = client.getLock(name);
        held.lock();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        Future<?> waiter = pool.submit(() -> {
            ReentrantDistributedLock lock = client.getLock(name);
            lock.lock();
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            inside.decrementAndGet();
            lock.unlock();
            return null;
        });
        awaitWaiters(name, 1);
        // the lock is lost under its holder, as when its lease runs out during a pause (silently), and retaken
        ReentrantDistributedLock rivalLock = rival.getLock(name);
        assertThat(redis.commands().del(keys(name).lock())).isEqualTo(1);
        assertThat(rivalLock.tryLock()).isTrue();
        inside.incrementAndGet();
        String outcome;
        try {
            held.unlock();
            outcome = "unlock of a lost lock did not report the loss";
        }
        catch (LockLostException expected) {
            outcome = "refused";
        }
        Thread.sleep(200);
        if (overlaps.get() > 0 || waiter.isDone()) {
            outcome = "handed over a lock the rival holds";
        }
        inside.decrementAndGet();
        try {
            rivalLock.unlock();
        }
        catch (LockLostException ex) {
            outcome += "; the rival lost its hold";
        }
        try {
            waiter.get(5, TimeUnit.SECONDS); // it takes the lock the normal way
        }
        catch (Exception ex) {
            outcome += "; waiter failed: " + ex;
        }
        if (!client.heldLocks().isEmpty()) {
            outcome += "; left holds " + client.heldLocks();
        }
        return outcome;
    }

    @Test
    @Tag("redis-version-independent")
    void aWaiterWhoseDeadlinePassesDuringTheTransferGetsTheLockOrLeavesNothingBehind() throws Exception {
        RedisLockClient slow = slowTransferClient();
        {
            String name = "deadline";
            ReentrantDistributedLock held = slow.getLock(name);
            held.lock();
            AtomicReference<Object> result = new AtomicReference<>();
            AtomicLong startedAt = new AtomicLong();
            long waitMillis = 1_000;
            Thread waiter = start(() -> {
                ReentrantDistributedLock lock = slow.getLock(name);
                startedAt.set(System.nanoTime());
                boolean acquired = lock.tryLock(waitMillis, TimeUnit.MILLISECONDS);
                result.set(acquired && lock.isHeldByCurrentThread() ? "held" : acquired ? "claims but does not hold"
                        : "gave up");
                if (acquired) {
                    lock.unlock();
                }
            });
            awaitAsleep(waiter);
            // the waiter's deadline falls in the middle of the slow transfer
            long releaseAt = startedAt.get() + TimeUnit.MILLISECONDS.toNanos(waitMillis - SLOW_TRANSFER_MILLIS / 2);
            Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(releaseAt - System.nanoTime())));
            held.unlock();
            waiter.join(10_000);
            assertThat(result.get()).isEqualTo("held");
        }
        await().atMost(Duration.ofSeconds(2)).until(() -> redis.commands().exists(keys("deadline").lock()) == 0);
        assertThat(slow.heldLocks()).isEmpty();
    }

    @Test
    @Tag("redis-version-independent")
    void anInterruptDuringTheTransferPassesTheLockOnAndReportsTheInterrupt() throws Exception {
        RedisLockClient slow = slowTransferClient();
        {
            String name = "interrupt";
            ReentrantDistributedLock held = slow.getLock(name);
            held.lock();
            AtomicReference<Object> first = new AtomicReference<>();
            Thread interrupted = start(() -> {
                try {
                    slow.getLock(name).lockInterruptibly();
                    first.set("acquired");
                }
                catch (InterruptedException ex) {
                    first.set(ex);
                }
            });
            awaitAsleep(interrupted);
            AtomicLong secondToken = new AtomicLong();
            Thread second = start(() -> {
                ReentrantDistributedLock lock = slow.getLock(name);
                lock.lock();
                secondToken.set(lock.fencingToken());
                lock.unlock();
            });
            awaitAsleep(second);
            Thread interrupter = start(() -> {
                Thread.sleep(SLOW_TRANSFER_MILLIS / 3);
                interrupted.interrupt(); // while the hold is on its way to it
            });
            held.unlock();
            interrupter.join(10_000);
            interrupted.join(10_000);
            second.join(10_000);
            assertThat(first.get()).isInstanceOf(InterruptedException.class);
            assertThat(secondToken.get()).as("the hold went on to the next waiter").isPositive();
        }
        assertThat(redis.commands().exists(keys("interrupt").lock())).isZero();
        assertThat(slow.heldLocks()).isEmpty();
    }

    /**
     * Fairness: two clients of four threads each on one key. Hand-offs keep the lock inside one client
     * for one turn, then it goes to the other client in line, so each client keeps getting it: the longest
     * gap between two acquisitions by the same client stays short, and so does the longest wait. Control: a
     * transfer that never lets the line go first starves the other client.
     */
    @Test
    void neitherOfTwoContendingClientsIsStarved() throws Exception {
        Fairness real = contend("fair", 3_000);
        System.out.println("hand-off fairness (2 clients x 4 threads): " + real);
        assertThat(real.overlaps).isZero();
        assertThat(real.acquisitions).allSatisfy(n -> assertThat(n).isGreaterThan(50));
        assertThat(real.longestGapMillis).isLessThan(FAIRNESS_BOUND_MILLIS);
        assertThat(real.longestWaitMillis).isLessThan(FAIRNESS_BOUND_MILLIS);

        try (Swap broken = swap(LuaScript.TRANSFER, replace(LuaScript.TRANSFER.getScriptAsString(),
                "if free then", "if false then -- BROKEN: never frees it for the other clients"))) {
            Fairness unbounded = contend("unfair", 1_500);
            System.out.println("control, unbounded hand-off: " + unbounded);
            assertThat(unbounded.longestGapMillis).isGreaterThanOrEqualTo(FAIRNESS_BOUND_MILLIS);
        }
    }

    /** No client waits longer than this between two of its acquisitions (W3-style loop, 2-core machine). */
    static final long FAIRNESS_BOUND_MILLIS = 500;

    record Fairness(List<Integer> acquisitions, long longestGapMillis, long longestWaitMillis, int overlaps) {
    }

    private Fairness contend(String name, long millis) throws Exception {
        int clients = 2;
        int threads = 4;
        List<RedisLockClient> contenders = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            RedisLockClient contender = RedisLockClient.builder(redis.newConnectionFactory()).build();
            contenders.add(contender);
            others.add(contender);
        }
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong longestWait = new AtomicLong();
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(millis);
        AtomicLong[] lastAcquired = new AtomicLong[clients];
        AtomicLong[] longestGap = new AtomicLong[clients];
        AtomicInteger[] counts = new AtomicInteger[clients];
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            lastAcquired[c] = new AtomicLong(start);
            longestGap[c] = new AtomicLong();
            counts[c] = new AtomicInteger();
            int client = c;
            for (int t = 0; t < threads; t++) {
                running.add(pool.submit(() -> {
                    ReentrantDistributedLock lock = contenders.get(client).getLock(name);
                    while (System.nanoTime() < end) {
                        long asked = System.nanoTime();
                        lock.lock();
                        long now = System.nanoTime();
                        longestWait.accumulateAndGet(now - asked, Math::max);
                        longestGap[client].accumulateAndGet(now - lastAcquired[client].getAndSet(now), Math::max);
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        counts[client].incrementAndGet();
                        // long enough that the client's other threads are always asleep when it is released
                        Thread.sleep(1);
                        inside.decrementAndGet();
                        lock.unlock();
                    }
                    return null;
                }));
            }
        }
        for (Future<?> f : running) {
            f.get(60, TimeUnit.SECONDS);
        }
        long gap = 0;
        List<Integer> acquisitions = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            // a client that never got the lock again before the end starved for the rest of the run
            gap = Math.max(gap, Math.max(longestGap[c].get(), end - lastAcquired[c].get()));
            acquisitions.add(counts[c].get());
        }
        return new Fairness(acquisitions, TimeUnit.NANOSECONDS.toMillis(gap),
                TimeUnit.NANOSECONDS.toMillis(longestWait.get()), overlaps.get());
    }

    // --- helpers

    interface Body {
        void run() throws Exception;
    }

    private Thread start(Body body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void awaitLatch(CountDownLatch latch) throws InterruptedException {
        latch.await(30, TimeUnit.SECONDS);
    }

    /** Until the thread sleeps in its wait (subscribed, attempted, parked on the wait's future). */
    private static void awaitAsleep(Thread thread) throws InterruptedException {
        Thread.sleep(150);
        await().atMost(Duration.ofSeconds(5)).until(() -> thread.getState() == Thread.State.TIMED_WAITING
                || thread.getState() == Thread.State.WAITING);
        Thread.sleep(50);
    }

    private void awaitWaiters(String name, int count) throws InterruptedException {
        await().atMost(Duration.ofSeconds(5)).until(() -> releaseListeners(name) >= count);
        Thread.sleep(200);
    }

    /** Where lock {@code name} lives: every client of this test uses the default key prefix. */
    private LockRedisKeys keys(String name) {
        return client.redisKeys(name);
    }

    /** Another process listening on a release channel: what it hears, in order. */
    static final class Listener implements AutoCloseable {

        private final io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.uri());
        private final io.lettuce.core.pubsub.StatefulRedisPubSubConnection<String, String> connection =
                client.connectPubSub();
        private final java.util.concurrent.BlockingQueue<String> heard = new java.util.concurrent.LinkedBlockingQueue<>();

        Listener(String channel) {
            connection.addListener(new io.lettuce.core.pubsub.RedisPubSubAdapter<>() {
                @Override
                public void message(String from, String message) {
                    heard.add(message);
                }
            });
            connection.sync().subscribe(channel);
        }

        /** The next message heard, waiting up to 5 s; null if none came. */
        String next() throws InterruptedException {
            return heard.poll(5, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }

    private static Listener listen(String channel) {
        return new Listener(channel);
    }

    private long releaseListeners(String name) {
        String channel = keys(name).releaseChannel();
        return redis.commands().pubsubNumsub(channel).getOrDefault(channel, 0L);
    }

    /** The owner id of {@code thread}'s hold, as its client reports it. */
    private static String ownerOf(RedisLockClient client, Thread thread) {
        return client.heldLocks().stream().filter(held -> thread.getName().equals(held.ownerThread()))
                .map(HeldLock::ownerId).findFirst()
                .orElseThrow(() -> new AssertionError(thread.getName() + " holds nothing on " + client.getClientId()));
    }

    private static long publishedMessages() {
        String stats = redis.commands().info("commandstats");
        for (String line : stats.split("\r?\n")) {
            if (line.startsWith("cmdstat_publish:")) {
                return Long.parseLong(line.replaceAll("^cmdstat_publish:calls=(\\d+),.*", "$1"));
            }
        }
        return 0;
    }

    /**
     * A client whose hand-offs are slow on the way to Redis (the releaser's thread sleeps before sending
     * transfer.lua), as over a slow network: a waiter's own commands are not held up behind them.
     */
    private RedisLockClient slowTransferClient() {
        RedisConnectionFactory delaying = proxy(RedisConnectionFactory.class, redis.newConnectionFactory(),
                (method, args, result) -> !method.getName().equals("getConnection") ? result
                        : proxy(RedisConnection.class, result, (m, a, connection) -> !m.getName().equals("getNativeConnection")
                                ? connection : proxy(RedisAsyncCommands.class, connection, null)));
        RedisLockClient slow = RedisLockClient.builder(delaying).build();
        others.add(slow);
        return slow;
    }

    interface Wrap {
        Object wrap(Method method, Object[] args, Object result);
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Object target, Wrap wrap) {
        // with Lettuce's interfaces of the target too: a subscribed connection's native one is pub/sub commands
        Set<Class<?>> types = new LinkedHashSet<>(List.of(type));
        for (Class<?> own = target.getClass(); own != null; own = own.getSuperclass()) {
            for (Class<?> implemented : own.getInterfaces()) {
                if (type.isAssignableFrom(implemented) || implemented.getName().startsWith("io.lettuce.")) {
                    types.add(implemented);
                }
            }
        }
        return (T) Proxy.newProxyInstance(HandOffTest.class.getClassLoader(), types.toArray(Class<?>[]::new), (p, method, args) -> {
            if (wrap == null && method.getName().equals("evalsha") && LuaScript.TRANSFER.getSha1().equals(args[0])) {
                Thread.sleep(SLOW_TRANSFER_MILLIS);
            }
            Object result;
            try {
                result = method.invoke(target, args);
            }
            catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
            return wrap == null ? result : wrap.wrap(method, args, result);
        });
    }

    private static String transferWithoutChecks() {
        String source = LuaScript.TRANSFER.getScriptAsString();
        source = replace(source, "if current ~= ARGV[2] then", "if false then -- BROKEN: no token check");
        source = replace(source, "if released == '1' then", "if false then");
        source = replace(source, "if tonumber(redis.call('hget', KEYS[1], ARGV[1]) or 0) ~= 1 then",
                "if false then -- BROKEN: no owner check");
        return replace(source, "redis.call('hset', KEYS[1], ARGV[3], 1)", "redis.call('hincrby', KEYS[1], ARGV[3], 1)");
    }

    private static String replace(String source, String target, String replacement) {
        if (!source.contains(target)) {
            throw new IllegalStateException("transfer.lua changed: cannot find " + target);
        }
        return source.replace(target, replacement);
    }

    interface Swap extends AutoCloseable {
        @Override
        void close();
    }

    /** Swaps a script singleton's text for the test (reflection, test code only), as the reliability controls do. */
    private static Swap swap(LuaScript<?> script, String source) {
        String original = script.getScriptAsString();
        set(script, source);
        return () -> set(script, original);
    }

    private static void set(LuaScript<?> script, String source) {
        byte[] bytes = source.getBytes(StandardCharsets.UTF_8);
        try {
            for (String[] field : new String[][] {{"source"}, {"sourceBytes"}, {"sha1"}}) {
                Field f = LuaScript.class.getDeclaredField(field[0]);
                f.setAccessible(true);
                f.set(script, switch (field[0]) {
                    case "source" -> source;
                    case "sourceBytes" -> bytes;
                    default -> HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
                });
            }
        }
        catch (ReflectiveOperationException | java.security.NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
