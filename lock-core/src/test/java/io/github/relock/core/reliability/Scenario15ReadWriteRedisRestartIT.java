package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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

import io.github.relock.core.LockLostException;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 15: redis-server is SIGKILLed and restarted without persistence while two readers hold one
 * read-write lock and a writer holds another (watchdog leases), and threads of another client wait on both
 * sides. Every hold must be reported lost, to the {@code LockLostListener} at the next renewal after the
 * restart and to its owner's {@code unlock()} as a {@link LockLostException}: none may carry on as if it
 * still held. Every waiter must return within its wait time + 1 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
class Scenario15ReadWriteRedisRestartIT {

    static final long LEASE_MILLIS = 1_500;
    static final long RENEWAL_MILLIS = LEASE_MILLIS / 3;
    static final long WAIT_MILLIS = 3_000;
    static final int TRIALS = 6;
    static final int HOLDS = 3;
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ScenarioRunner<Outcome, Outcome> scenario = new ScenarioRunner<>("15",
            "redis-server restarted empty under read-write holds");

    static final class Outcome {
        int trials;
        final List<Long> lostAfterRestart = new ArrayList<>();
        final WaiterReturns waiters = new WaiterReturns();
        long lossNotReported;
        long unlockLost;
        long unlockSilent;

        long holds() {
            return (long) trials * HOLDS;
        }
    }

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, control) -> {
            Stats lost = new Stats(real.lostAfterRestart);
            Stats overrun = new Stats(real.waiters.overrun);
            long late = real.lostAfterRestart.stream().filter(m -> m > RENEWAL_MILLIS + 200).count();
            long overran = real.waiters.overrun.stream().filter(m -> m > 1_000).count();
            long violations = real.lossNotReported + real.unlockSilent + late + overran + real.waiters.hung;
            return new ReliabilityReport.Figures(
                    real.trials + " restarts; " + real.holds() + " holds (2 readers of one lock, the writer of "
                            + "another; watchdog lease " + LEASE_MILLIS + " ms); " + real.waiters.overrun.size()
                            + " waiters (a writer, a reader and a writer; wait " + WAIT_MILLIS + " ms)",
                    violations,
                    String.format(Locale.ROOT, "%d of %d holds reported to the listener, %d ms (p50) / %d ms (max) "
                                    + "after the restart; unlock() threw LockLostException for %d, returned or threw "
                                    + "otherwise for %d; slowest waiter back after %d ms of its %d ms wait (%d "
                                    + "acquired, %d timed out, %d failed); %d hung",
                            real.holds() - real.lossNotReported, real.holds(), lost.percentile(50), lost.max(),
                            real.unlockLost, real.unlockSilent, WAIT_MILLIS + overrun.max(), WAIT_MILLIS,
                            real.waiters.acquired, real.waiters.timedOut, real.waiters.failed, real.waiters.hung),
                    "every hold lost at the next renewal (≤ " + RENEWAL_MILLIS + " + 200 ms) and at unlock(); every "
                            + "waiter back within wait + 1 s",
                    violations == 0 && real.trials >= TRIALS,
                    String.format(Locale.ROOT, "renewal that puts a vanished hold back: %d of %d holds never reported "
                                    + "to the listener (unlock() still threw LockLostException for %d: the resurrected "
                                    + "hold lacks its token)", control.lossNotReported, control.holds(),
                            control.unlockLost));
        });
    }

    @Test
    @Order(1)
    void everyHoldIsReportedLostAndNoWaiterHangs() throws Exception {
        Outcome real = scenario.real(() -> run("restart", TRIALS));
        assertThat(real.lossNotReported).isZero();
        assertThat(real.unlockSilent).isZero();
        assertThat(real.waiters.hung).isZero();
        assertThat(real.lostAfterRestart).allSatisfy(m -> assertThat(m).isLessThanOrEqualTo(RENEWAL_MILLIS + 200));
        assertThat(real.waiters.overrun).allSatisfy(m -> assertThat(m).isLessThanOrEqualTo(1_000));
    }

    @Test
    @Order(2)
    void checkerCatchesARenewalThatResurrectsReadWriteHolds() throws Exception {
        Outcome control = scenario.control(() -> {
            try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.RENEW_RESURRECTS)) {
                return run("resurrect", 2);
            }
        });
        assertThat(control.lossNotReported).isPositive();
    }

    private Outcome run(String prefix, int trials) throws Exception {
        Outcome outcome = new Outcome();
        Map<String, Long> lostAt = new ConcurrentHashMap<>(); // lock name + owner -> when reported
        ExecutorService pool = Executors.newCachedThreadPool();
        RedisLockClient holderClient = RedisLockClient.builder(redis.newConnectionFactory(COMMAND_TIMEOUT))
                .watchdogTimeout(Duration.ofMillis(LEASE_MILLIS))
                .lockLostListener(e -> lostAt.putIfAbsent(e.lockName() + " " + e.ownerId(), System.nanoTime()))
                .build();
        RedisLockClient waiterClient = RedisLockClient.builder(redis.newConnectionFactory(COMMAND_TIMEOUT))
                .watchdogTimeout(Duration.ofMillis(LEASE_MILLIS)).build();
        try {
            for (int trial = 0; trial < trials; trial++) {
                String read = prefix + "-read-" + trial;
                String write = prefix + "-write-" + trial;
                CompletableFuture<Void> release = new CompletableFuture<>();
                List<CompletableFuture<Void>> inside = new ArrayList<>();
                List<Future<String>> holders = new ArrayList<>();
                for (ReentrantDistributedLock lock : List.of(holderClient.getReadWriteLock(read).readLock(),
                        holderClient.getReadWriteLock(read).readLock(), holderClient.getReadWriteLock(write).writeLock())) {
                    CompletableFuture<Void> in = new CompletableFuture<>();
                    inside.add(in);
                    holders.add(pool.submit(() -> hold(lock, in, release)));
                }
                CompletableFuture.allOf(inside.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

                List<Future<long[]>> waiters = new ArrayList<>();
                for (ReentrantDistributedLock lock : List.of(waiterClient.getReadWriteLock(read).writeLock(),
                        waiterClient.getReadWriteLock(write).readLock(), waiterClient.getReadWriteLock(write).writeLock())) {
                    waiters.add(pool.submit(() -> waitFor(lock)));
                }
                long restartedAt = EmptyRestart.killAndRestart(redis, RENEWAL_MILLIS);

                outcome.waiters.collect(waiters, WAIT_MILLIS, w -> { });
                List<Long> reported = awaitReported(lostAt, List.of(read, write), 3_000);
                outcome.lossNotReported += HOLDS - reported.size();
                reported.forEach(at -> outcome.lostAfterRestart.add(TimeUnit.NANOSECONDS.toMillis(at - restartedAt)));
                release.complete(null);
                List<String> unlocks = new ArrayList<>();
                for (Future<String> holder : holders) {
                    String unlock = holder.get(10, TimeUnit.SECONDS);
                    unlocks.add(unlock);
                    if (unlock.equals(LockLostException.class.getSimpleName())) {
                        outcome.unlockLost++;
                    }
                    else {
                        outcome.unlockSilent++;
                    }
                }
                outcome.trials++;
                System.out.printf("scenario 15 trial %d: %d of %d losses reported %s ms after the restart; unlocks %s; "
                                + "waiters %s ms over their wait%n", trial, reported.size(), HOLDS,
                        reported.stream().map(at -> TimeUnit.NANOSECONDS.toMillis(at - restartedAt)).toList(), unlocks,
                        outcome.waiters.lastOverruns(waiters.size()));
            }
        }
        finally {
            pool.shutdownNow();
            holderClient.close();
            waiterClient.close();
        }
        return outcome;
    }

    /** Takes the lock, then holds it on this thread (a thread owns its holds) until told; says how unlock() went. */
    private static String hold(ReentrantDistributedLock lock, CompletableFuture<Void> inside,
            CompletableFuture<Void> release) throws Exception {
        lock.lock();
        inside.complete(null);
        release.get();
        try {
            lock.unlock();
            return "returned";
        }
        catch (RuntimeException ex) {
            return ex.getClass().getSimpleName();
        }
    }

    /** {wait start, return, outcome (1 acquired, 0 timed out, -1 failed)}. */
    private static long[] waitFor(ReentrantDistributedLock lock) {
        long start = System.nanoTime();
        try {
            if (lock.tryLock(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                Thread.sleep(20);
                lock.unlock();
                return new long[] {start, System.nanoTime(), 1};
            }
            return new long[] {start, System.nanoTime(), 0};
        }
        catch (Exception ex) {
            return new long[] {start, System.nanoTime(), -1};
        }
    }

    /** The instants at which the listener heard of holds on {@code names}, once all are in or time is up. */
    private static List<Long> awaitReported(Map<String, Long> lostAt, List<String> names, long millis)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (true) {
            List<Long> reported = lostAt.entrySet().stream()
                    .filter(e -> names.contains(e.getKey().substring(0, e.getKey().indexOf(' '))))
                    .map(Map.Entry::getValue).toList();
            if (reported.size() >= HOLDS || System.nanoTime() > deadline) {
                return reported;
            }
            Thread.sleep(5);
        }
    }
}
