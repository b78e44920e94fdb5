package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 6: the waiting client's pub/sub connection is killed ({@code CLIENT KILL TYPE pubsub}) while
 * its threads wait, and the holder releases at once, while Lettuce is still reconnecting: the release
 * announcement reaches nobody. Every waiter must still get the lock within 1 s of the release, although
 * the holder's lease (the waiters' fallback wake-up) has up to 3 s left.
 *
 * <p>Waiters run in two layouts: four threads of one client (after the first of them gets the lock, it
 * goes from thread to thread by local hand-off, without announcements) and one thread in each of four
 * clients (every pass is a release that must be announced). The control, a release that announces
 * nothing, uses the second layout: with one client, hand-offs would carry the lock on without any
 * announcement and the control could not show that the checker notices missing wake-ups.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
class Scenario06PubSubKilledIT {

    static final long HOLDER_LEASE_MILLIS = 3_000;
    static final int WAITERS = 4;
    static final int TRIALS = 10;
    static final long HOLD_MILLIS = 20;
    static final long TARGET_MILLIS = 1_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ScenarioRunner<Outcome, Outcome> scenario = new ScenarioRunner<>("6",
            "pub/sub connection killed while threads wait");

    static final class Outcome {
        int trials;
        final List<Long> lastWaiterAfterRelease = new ArrayList<>();
        long late;
        long notAcquired;
    }

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, control) -> {
            Stats last = new Stats(real.lastWaiterAfterRelease);
            long violations = real.late + real.notAcquired;
            return new ReliabilityReport.Figures(
                    real.trials + " kills, " + WAITERS + " waiters each, half as threads of one client, half in "
                            + WAITERS + " clients (holder's lease " + HOLDER_LEASE_MILLIS + " ms, released right after "
                            + "the kill)",
                    violations,
                    String.format(Locale.ROOT, "last of %d waiters acquired %d ms (p50) / %d ms (max) after the "
                            + "release (each holds %d ms)", WAITERS, last.percentile(50), last.max(), HOLD_MILLIS),
                    "all waiters acquire within 1 s of the release",
                    violations == 0 && real.trials >= TRIALS,
                    String.format(Locale.ROOT, "release that does not announce itself (waiters in %d clients): %d of "
                                    + "%d trials late, %d waiters never acquired (last waiter max %d ms)", WAITERS,
                            control.late, control.trials, control.notAcquired,
                            new Stats(control.lastWaiterAfterRelease).max()));
        });
    }

    @Test
    @Order(1)
    void waitersWakeAfterThePubSubConnectionCameBack() throws Exception {
        Outcome real = scenario.real(() -> run("killed-spread", TRIALS, WAITERS, run("killed", TRIALS, 1)));
        assertThat(real.notAcquired).isZero();
        assertThat(real.lastWaiterAfterRelease).allSatisfy(m -> assertThat(m).isLessThanOrEqualTo(TARGET_MILLIS));
    }

    @Test
    @Order(2)
    void checkerCatchesAReleaseThatWakesNobody() throws Exception {
        Outcome control = scenario.control(() -> {
            try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.RELEASE_SILENT)) {
                return run("silent", 1, WAITERS);
            }
        });
        assertThat(control.late + control.notAcquired).isPositive();
    }

    private Outcome run(String prefix, int trials, int waiterClients) throws Exception {
        return run(prefix, trials, waiterClients, new Outcome());
    }

    /** Runs trials with the waiters spread over {@code waiterClients} clients, adding to {@code outcome}. */
    private Outcome run(String prefix, int trials, int waiterClients, Outcome outcome) throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        RedisLockClient holderClient = RedisLockClient.builder(redis.newConnectionFactory())
                .watchdogTimeout(Duration.ofMillis(HOLDER_LEASE_MILLIS)).build();
        List<RedisLockClient> waiterClientList = new ArrayList<>();
        for (int c = 0; c < waiterClients; c++) {
            waiterClientList.add(RedisLockClient.builder(redis.newConnectionFactory()).build());
        }
        try {
            for (int trial = 0; trial < trials; trial++) {
                String name = prefix + "-" + trial;
                LockOwner holderOwner = holderClient.newOwner();
                ReentrantDistributedLock held = holderClient.getLock(name, holderOwner);
                held.lock();
                List<Future<Long>> waiters = new ArrayList<>();
                for (int w = 0; w < WAITERS; w++) {
                    RedisLockClient waiterClient = waiterClientList.get(w % waiterClients);
                    waiters.add(pool.submit(() -> {
                        ReentrantDistributedLock lock = waiterClient.getLock(name);
                        if (!lock.tryLock(10, TimeUnit.SECONDS)) {
                            return -1L;
                        }
                        long acquired = System.nanoTime();
                        Thread.sleep(HOLD_MILLIS);
                        lock.unlock();
                        return acquired;
                    }));
                }
                awaitSubscribed(holderClient.redisKeys(name).releaseChannel(), waiterClients);
                Thread.sleep(200); // every waiter is asleep in its wait
                redis.commands().clientKill(io.lettuce.core.KillArgs.Builder.typePubsub());
                long releasedAt = System.nanoTime();
                held.unlock(); // announced while the waiters' client has no subscription
                long last = 0;
                for (Future<Long> waiter : waiters) {
                    long acquired = waiter.get(15, TimeUnit.SECONDS);
                    if (acquired < 0) {
                        outcome.notAcquired++;
                    }
                    else {
                        last = Math.max(last, acquired);
                    }
                }
                long lastMillis = TimeUnit.NANOSECONDS.toMillis(last - releasedAt);
                outcome.lastWaiterAfterRelease.add(lastMillis);
                if (lastMillis > TARGET_MILLIS) {
                    outcome.late++;
                }
                outcome.trials++;
                System.out.printf("scenario 6 trial %s: last waiter acquired %d ms after the release%n", name,
                        lastMillis);
            }
        }
        finally {
            pool.shutdownNow();
            holderClient.close();
            waiterClientList.forEach(RedisLockClient::close);
        }
        return outcome;
    }

    private static void awaitSubscribed(String channel, int subscribers) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (redis.commands().pubsubNumsub(channel).getOrDefault(channel, 0L) < subscribers) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("nobody subscribed to " + channel);
            }
            Thread.sleep(5);
        }
    }
}
