package io.github.relock.core.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.Contenders;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.core.reliability.BrokenScripts;
import io.github.relock.test.RedisServerExtension;
import io.github.relock.test.TestScale;

/**
 * Turns (turns.lua): clients that wait for a plain lock held by another client take it in the order they
 * found it busy, a release wakes only the client whose turn it is, and a turn nobody comes for lapses
 * without stalling the others.
 */
@Timeout(120)
class TurnsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @RegisterExtension
    final Contenders contenders = new Contenders(redis);

    @Test
    void aClientWaitingInLineIsNotOvertakenByAnotherClientsTryLock() throws Exception {
        int real = waiterWinsOf(10);
        int control;
        try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.ACQUIRE_IGNORES_TURNS)) {
            control = waiterWinsOf(10);
        }
        System.out.println("waiter's wins of 10: with turns " + real + ", control without " + control);
        // one round may go to the spinner on a busy machine: a named client that takes longer than a turn loses it
        assertThat(real).as("rounds the waiting client won").isGreaterThanOrEqualTo(9);
        assertThat(control).as("control: without turns the spinning tryLock() wins").isLessThanOrEqualTo(7);
    }

    /** Rounds of: A holds, B waits in lock(), C spins on tryLock(); A releases. Who got it next, B? */
    private int waiterWinsOf(int rounds) throws Exception {
        RedisLockClient a = contenders.newClient();
        RedisLockClient b = contenders.newClient();
        RedisLockClient c = contenders.newClient();
        int waiterWins = 0;
        for (int round = 0; round < rounds; round++) {
            String name = "line-" + System.nanoTime();
            ReentrantDistributedLock held = a.getLock(name);
            held.lock();
            List<String> order = new CopyOnWriteArrayList<>();
            Future<?> waiter = contenders.pool().submit(() -> {
                ReentrantDistributedLock lock = b.getLock(name);
                lock.lock();
                order.add("waiter");
                lock.unlock();
                return null;
            });
            awaitInLine(name, b);
            AtomicBoolean stop = new AtomicBoolean();
            Future<?> spinner = contenders.pool().submit(() -> {
                ReentrantDistributedLock lock = c.getLock(name);
                while (!stop.get()) {
                    if (lock.tryLock()) {
                        order.add("spinner");
                        lock.unlock();
                        return null;
                    }
                }
                return null;
            });
            Thread.sleep(20); // the spinner is spinning
            held.unlock();
            waiter.get(10, TimeUnit.SECONDS);
            stop.set(true);
            spinner.get(10, TimeUnit.SECONDS);
            if (order.get(0).equals("waiter")) {
                waiterWins++;
            }
        }
        return waiterWins;
    }

    @Test
    void waitingClientsTakeTheLockInTheOrderTheyFoundItBusy() throws Exception {
        RedisLockClient holder = contenders.newClient();
        List<RedisLockClient> waiting = List.of(contenders.newClient(), contenders.newClient(), contenders.newClient(), contenders.newClient());
        String name = "order";
        ReentrantDistributedLock held = holder.getLock(name);
        held.lock();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < waiting.size(); i++) {
            int index = i;
            running.add(contenders.pool().submit(() -> {
                ReentrantDistributedLock lock = waiting.get(index).getLock(name);
                lock.lock();
                order.add(index);
                lock.unlock();
                return null;
            }));
            awaitInLine(name, waiting.get(i));
        }
        Thread.sleep(200); // each waiter's attempt after it subscribed is done
        long before = evalshaCalls();
        held.unlock();
        for (Future<?> f : running) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertThat(order).containsExactly(0, 1, 2, 3);
        // each release wakes the one client whose turn it is: 4 acquisitions and 5 releases, no busy attempts
        assertThat(evalshaCalls() - before).as("scripts run after the first release").isLessThanOrEqualTo(9);
    }

    @Test
    void aTurnNobodyComesForLapsesAndTheNextClientGetsTheLockAtOnce() throws Exception {
        RedisLockClient holder = contenders.newClient();
        RedisLockClient gone = contenders.newClient();
        RedisLockClient next = contenders.newClient();
        String name = "lapsed";
        ReentrantDistributedLock held = holder.getLock(name);
        held.lock();
        // first in line, then it stops waiting
        Future<Boolean> givesUp = contenders.pool()
                .submit(() -> gone.getLock(name).tryLock(300, TimeUnit.MILLISECONDS));
        awaitInLine(name, gone);
        Future<Long> waited = contenders.pool().submit(() -> {
            ReentrantDistributedLock lock = next.getLock(name);
            long start = System.nanoTime();
            lock.lock();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            lock.unlock();
            return millis;
        });
        awaitInLine(name, next);
        assertThat(givesUp.get(10, TimeUnit.SECONDS)).isFalse();
        long released = System.nanoTime();
        held.unlock(); // kept for the client that left: the other looks once that turn lapses
        waited.get(10, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released))
                .as("ms from the release to the next client's hold, against a 30 s lease")
                .isLessThan(2_000);
    }

    @Test
    void forceUnlockClearsTheTurnsSoEveryWaiterMayTakeTheLock() throws Exception {
        RedisLockClient holder = contenders.newClient();
        RedisLockClient gone = contenders.newClient();
        RedisLockClient next = contenders.newClient();
        String name = "forced";
        holder.getLock(name).lock();
        Future<Boolean> givesUp = contenders.pool()
                .submit(() -> gone.getLock(name).tryLock(300, TimeUnit.MILLISECONDS));
        awaitInLine(name, gone);
        assertThat(givesUp.get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(next.getLock(name).forceUnlock()).isTrue();
        assertThat(redis.commands().exists(turnsKey(holder, name))).isZero();
        assertThat(next.getLock(name).tryLock()).isTrue();
    }

    @Test
    void aClientDoesNotQueueBehindItsOwnHoldNorDoesTryLockWithoutWaitQueue() throws Exception {
        RedisLockClient holder = contenders.newClient();
        RedisLockClient other = contenders.newClient();
        String name = "own";
        ReentrantDistributedLock held = holder.getLock(name);
        held.lock();
        AtomicInteger got = new AtomicInteger();
        Future<?> sibling = contenders.pool().submit(() -> {
            ReentrantDistributedLock lock = holder.getLock(name);
            if (lock.tryLock(200, TimeUnit.MILLISECONDS)) {
                got.incrementAndGet();
                lock.unlock();
            }
            return null;
        });
        assertThat(other.getLock(name).tryLock()).isFalse();
        sibling.get(10, TimeUnit.SECONDS);
        assertThat(redis.commands().exists(turnsKey(holder, name))).as("nobody in line").isZero();
        held.unlock();
    }

    @Test
    void underContentionNoWaiterSleepsToItsLeaseTimer() throws Exception {
        // 4 clients x 4 threads on one key, 30 s watchdog leases: a wake-up lost to the turns would show as a
        // wait of about 30 s, so a wait of 10 s fails the test while the run stays bounded
        List<RedisLockClient> four = List.of(contenders.newClient(), contenders.newClient(), contenders.newClient(),
                contenders.newClient());
        // 6 s of contention (a quarter of that in the runs on another server or JDK)
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TestScale.of(6_000));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger acquisitions = new AtomicInteger();
        List<Future<Long>> running = new ArrayList<>();
        for (RedisLockClient contender : four) {
            for (int t = 0; t < 4; t++) {
                running.add(contenders.pool().submit(() -> {
                    ReentrantDistributedLock lock = contender.getLock("contended");
                    long longest = 0;
                    while (System.nanoTime() < end) {
                        long asked = System.nanoTime();
                        if (!lock.tryLock(10, TimeUnit.SECONDS)) {
                            return Long.MAX_VALUE;
                        }
                        longest = Math.max(longest, System.nanoTime() - asked);
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        acquisitions.incrementAndGet();
                        inside.decrementAndGet();
                        lock.unlock();
                    }
                    return longest;
                }));
            }
        }
        long longest = 0;
        for (Future<Long> f : running) {
            longest = Math.max(longest, f.get(30, TimeUnit.SECONDS));
        }
        System.out.println("turns under contention: " + acquisitions + " acquisitions, longest wait "
                + (longest == Long.MAX_VALUE ? "timed out" : TimeUnit.NANOSECONDS.toMillis(longest) + " ms"));
        assertThat(overlaps).hasValue(0);
        assertThat(longest).as("no wait reached 10 s").isLessThan(TimeUnit.SECONDS.toNanos(10));
    }

    @Test
    void turnMessagesAreReadAsTheScriptsWriteThem() {
        String me = "me:";
        assertThat(TurnMessage.of("me:12", me)).isEqualTo(TurnMessage.OPEN);
        assertThat(TurnMessage.of("", me)).isEqualTo(TurnMessage.OPEN);
        assertThat(TurnMessage.of("+me:other:", me)).isEqualTo(TurnMessage.MINE);
        assertThat(TurnMessage.of("+other:me:", me)).isEqualTo(TurnMessage.OTHERS_TURN);
        assertThat(TurnMessage.of("+xme:", me)).isEqualTo(TurnMessage.OTHERS_TURN);
        assertThat(TurnMessage.of("-other:me:", me)).isEqualTo(TurnMessage.BEHIND);
        assertThat(TurnMessage.of("-other:me:250", me)).isEqualTo(TurnMessage.BEHIND);
        assertThat(TurnMessage.takenLeaseMillis("-other:me:250")).isEqualTo(250);
        assertThat(TurnMessage.of("-me:", me)).isEqualTo(TurnMessage.TAKEN_BY_ME);
        assertThat(TurnMessage.of("-other:xme:", me)).isEqualTo(TurnMessage.NOT_IN_LINE);
        assertThat(TurnMessage.of("-other:", me)).isEqualTo(TurnMessage.NOT_IN_LINE);
    }

    private static String turnsKey(RedisLockClient client, String name) {
        return client.redisKeys(name).lock() + ":turn";
    }

    private static void awaitInLine(String name, RedisLockClient client) {
        String key = turnsKey(client, name);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            String line = redis.commands().get(key);
            if (line != null && line.contains(client.getClientId() + ":")) {
                return;
            }
            assertThat(System.nanoTime()).as("client %s in the line of %s", client.getClientId(), name)
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static long evalshaCalls() {
        for (String line : redis.commands().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(calls.substring(0, calls.indexOf(',')));
            }
        }
        return 0;
    }
}
