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
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 4: redis-server is SIGKILLed and restarted without persistence while a lock is held and
 * threads of another client wait for it. The holder's watchdog must report the loss at its next
 * renewal after the restart; every waiter must return (acquired, timed out or failed) within its wait
 * time + 1 s; no thread may hang.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
class Scenario04RedisRestartIT {

    static final long LEASE_MILLIS = 1_500;
    static final long RENEWAL_MILLIS = LEASE_MILLIS / 3;
    static final long WAIT_MILLIS = 3_000;
    static final int WAITERS = 4;
    static final int TRIALS = 8;
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ScenarioRunner<Outcome, Outcome> scenario = new ScenarioRunner<>("4",
            "redis-server killed and restarted empty mid-hold");

    static final class Outcome {
        int trials;
        final List<Long> lostAfterRestart = new ArrayList<>();
        final WaiterReturns waiters = new WaiterReturns();
        long lossNotReported;
        long overlaps;
        long maxOverlapMillis;
        long tokenRegressions;
    }

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, control) -> {
            Stats lost = new Stats(real.lostAfterRestart);
            Stats overrun = new Stats(real.waiters.overrun);
            long late = real.lostAfterRestart.stream().filter(m -> m > RENEWAL_MILLIS + 200).count();
            long overran = real.waiters.overrun.stream().filter(m -> m > 1_000).count();
            long violations = real.lossNotReported + real.waiters.hung + late + overran + real.tokenRegressions;
            return new ReliabilityReport.Figures(
                    real.trials + " restarts; " + real.trials * WAITERS + " waiters (wait " + WAIT_MILLIS + " ms, "
                            + "command timeout " + COMMAND_TIMEOUT.toMillis() + " ms); watchdog lease " + LEASE_MILLIS
                            + " ms",
                    violations,
                    String.format(Locale.ROOT, "loss reported %d ms (p50) / %d ms (max) after the restart; slowest "
                                    + "waiter back after %d ms of its %d ms wait (%d acquired, %d timed out, %d "
                                    + "failed); %d hung; fencing tokens kept growing across the data loss (%d "
                                    + "regressions); holds overlapping until the loss was reported: %d, at most %d ms "
                                    + "(expected: Redis lost the lock; bounded by the renewal interval)",
                            lost.percentile(50), lost.max(), WAIT_MILLIS + overrun.max(), WAIT_MILLIS,
                            real.waiters.acquired, real.waiters.timedOut, real.waiters.failed, real.waiters.hung,
                            real.tokenRegressions, real.overlaps, real.maxOverlapMillis),
                    "loss detected at the next renewal (≤ " + RENEWAL_MILLIS + " + 200 ms); every waiter back within "
                            + "wait + 1 s; no thread hangs",
                    violations == 0 && real.trials >= TRIALS,
                    String.format(Locale.ROOT, "renewal that puts a vanished hold back: loss unreported in %d of %d "
                                    + "restarts, %d overlapping holds", control.lossNotReported, control.trials,
                            control.overlaps));
        });
    }

    @Test
    @Order(1)
    void theLossIsReportedAndNoWaiterHangs() throws Exception {
        Outcome real = scenario.real(() -> run("restart", TRIALS));
        assertThat(real.lossNotReported).isZero();
        assertThat(real.waiters.hung).isZero();
        assertThat(real.lostAfterRestart).allSatisfy(m -> assertThat(m).isLessThanOrEqualTo(RENEWAL_MILLIS + 200));
        assertThat(real.waiters.overrun).allSatisfy(m -> assertThat(m).isLessThanOrEqualTo(1_000));
        assertThat(real.tokenRegressions).isZero();
    }

    @Test
    @Order(2)
    void checkerCatchesARenewalThatResurrectsTheLock() throws Exception {
        Outcome control = scenario.control(() -> {
            try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.RENEW_RESURRECTS)) {
                return run("resurrect", 2);
            }
        });
        assertThat(control.lossNotReported).isPositive();
    }

    private Outcome run(String prefix, int trials) throws Exception {
        Outcome outcome = new Outcome();
        History history = new History();
        AtomicLong lostAt = new AtomicLong();
        ExecutorService pool = Executors.newCachedThreadPool();
        RedisLockClient holderClient = RedisLockClient.builder(redis.newConnectionFactory(COMMAND_TIMEOUT))
                .watchdogTimeout(Duration.ofMillis(LEASE_MILLIS)).lockLostListener(e -> lostAt.set(System.nanoTime()))
                .build();
        RedisLockClient waiterClient = RedisLockClient.builder(redis.newConnectionFactory(COMMAND_TIMEOUT))
                .watchdogTimeout(Duration.ofMillis(LEASE_MILLIS)).build();
        try {
            for (int trial = 0; trial < trials; trial++) {
                String name = prefix + "-" + trial;
                lostAt.set(0);
                ReentrantDistributedLock held = holderClient.getLock(name);
                // the holder's lock and thread live on a pool thread: ownership is per thread
                Future<long[]> holding = pool.submit(() -> {
                    held.lock();
                    return new long[] {System.nanoTime(), held.fencingToken()};
                });
                long[] hold = holding.get(10, TimeUnit.SECONDS);

                List<Future<long[]>> waiters = new ArrayList<>();
                for (int w = 0; w < WAITERS; w++) {
                    waiters.add(pool.submit(() -> waitFor(waiterClient.getLock(name))));
                }
                long restartedAt = EmptyRestart.killAndRestart(redis, RENEWAL_MILLIS);

                outcome.waiters.collect(waiters, WAIT_MILLIS,
                        w -> history.record("waiter", "w" + w[4], name, w[3], w[5], w[6]));
                long lost = waitFor(lostAt, 3_000);
                if (lost == 0) {
                    outcome.lossNotReported++;
                    history.record("holder", "h", name, hold[1], hold[0], System.nanoTime());
                }
                else {
                    outcome.lostAfterRestart.add(TimeUnit.NANOSECONDS.toMillis(lost - restartedAt));
                    history.record("holder", "h", name, hold[1], hold[0], lost);
                }
                pool.submit(() -> {
                    try {
                        held.unlock();
                    }
                    catch (RuntimeException expected) {
                        // LockLostException on the real lock
                    }
                }).get(10, TimeUnit.SECONDS);
                outcome.trials++;
                System.out.printf("scenario 4 trial %s: loss reported %s ms after restart; waiters %s%n", name,
                        lost == 0 ? "never" : TimeUnit.NANOSECONDS.toMillis(lost - restartedAt),
                        outcome.waiters.lastOverruns(WAITERS));
            }
        }
        finally {
            pool.shutdownNow();
            holderClient.close();
            waiterClient.close();
        }
        History.Sweep sweep = history.sweep();
        outcome.overlaps = sweep.overlaps();
        outcome.maxOverlapMillis = sweep.maxOverlapMillis();
        outcome.tokenRegressions = sweep.tokenRegressions();
        return outcome;
    }

    /** {wait start, return, outcome (1 acquired, 0 timed out, -1 failed), token, thread id, acquired, released}. */
    private static long[] waitFor(ReentrantDistributedLock lock) {
        long start = System.nanoTime();
        long id = Thread.currentThread().getId();
        try {
            if (lock.tryLock(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                long acquired = System.nanoTime();
                long token = lock.fencingToken();
                Thread.sleep(20);
                long released = System.nanoTime();
                lock.unlock();
                return new long[] {start, System.nanoTime(), 1, token, id, acquired, released};
            }
            return new long[] {start, System.nanoTime(), 0, 0, id, 0, 0};
        }
        catch (Exception ex) {
            return new long[] {start, System.nanoTime(), -1, 0, id, 0, 0};
        }
    }

    private static long waitFor(AtomicLong instant, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (instant.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return instant.get();
    }
}
