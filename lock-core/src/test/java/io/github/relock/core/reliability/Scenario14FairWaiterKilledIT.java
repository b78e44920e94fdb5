package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.ChildJvm;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 14: a waiter JVM stands in a fair lock's line (at its head, or in the middle) and is SIGKILLed;
 * the holder in the parent then releases. A dead waiter keeps its place for at most 3 s after its last
 * attempt, and waiters look again at least every second, so the waiter behind it must get the lock within
 * {@link #BOUND_MILLIS} of the kill; all live waiters must get it in the order they joined the line, one at
 * a time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
class Scenario14FairWaiterKilledIT {

    /** The dead waiter's place (FairKind.PLACE_MILLIS, 3 s) plus one retry interval (a third of it). */
    static final long BOUND_MILLIS = 3_000 + 1_000;
    static final long WAIT_MILLIS = 7_000;
    static final int TRIALS = 8;
    static final int PARALLEL = 4;
    static final int LIVE_WAITERS = 2;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ScenarioRunner<Outcome, Outcome> scenario = new ScenarioRunner<>("14",
            "fair lock: a waiter JVM in line SIGKILLed");
    private RedisLockClient holderClient;
    private final List<RedisLockClient> waiterClients = new ArrayList<>();

    static final class Outcome {
        final List<Long> killToNext = new ArrayList<>();
        int trials;
        long late;
        long outOfOrder;
        long overlaps;
        long missing;
    }

    @BeforeAll
    void setUp() {
        holderClient = RedisLockClient.builder(redis.newConnectionFactory()).build();
        for (int i = 0; i < LIVE_WAITERS; i++) {
            waiterClients.add(RedisLockClient.builder(redis.newConnectionFactory()).build());
        }
    }

    @AfterAll
    void tearDown() {
        holderClient.close();
        waiterClients.forEach(RedisLockClient::close);
        scenario.report(redis.redisVersion(), (real, control) -> {
            Stats next = new Stats(real.killToNext);
            long violations = real.late + real.outOfOrder + real.overlaps + real.missing;
            return new ReliabilityReport.Figures(
                    real.trials + " waiter JVMs killed in line (half at its head, half in the middle), " + LIVE_WAITERS
                            + " live waiters of other clients each time",
                    violations,
                    String.format(Locale.ROOT, "kill to the next waiter's acquisition p50 %d / max %d ms; %d out of "
                                    + "FIFO order, %d overlaps, %d live waiters not in within %d ms",
                            next.percentile(50), next.max(), real.outOfOrder, real.overlaps, real.missing,
                            WAIT_MILLIS),
                    "next waiter ≤ " + BOUND_MILLIS + " ms after the kill (3 s place + 1 s retry); FIFO; no overlap",
                    violations == 0 && real.trials >= TRIALS,
                    String.format(Locale.ROOT, "line that never drops a lapsed place: next waiter late or never in %d "
                            + "of %d trials, %d live waiters not in within %d ms", control.late, control.trials,
                            control.missing, WAIT_MILLIS));
        });
    }

    @Test
    @Order(1)
    void theWaitersBehindTheDeadOneGetInOnTimeAndInOrder() throws Exception {
        Outcome real = scenario.real(() -> run("line", TRIALS));
        assertThat(real.outOfOrder).isZero();
        assertThat(real.overlaps).isZero();
        assertThat(real.missing).isZero();
        assertThat(real.killToNext).allSatisfy(m -> assertThat(m).isLessThanOrEqualTo(BOUND_MILLIS));
    }

    @Test
    @Order(2)
    void checkerCatchesALineThatKeepsLapsedPlaces() throws Exception {
        Outcome control = scenario.control(() -> {
            try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.LINE_KEEPS_LAPSED_PLACES)) {
                return run("jam", 2);
            }
        });
        assertThat(control.late).isPositive();
    }

    private Outcome run(String prefix, int trials) throws Exception {
        Outcome outcome = new Outcome();
        History history = new History();
        for (int done = 0; done < trials; done += PARALLEL) {
            int count = Math.min(PARALLEL, trials - done);
            List<ChildJvm> children = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                children.add(ChildJvm.start(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                        ReliabilityChild.class, "mode=hold", "kind=fair", "ready=1", "port=" + redis.server().port(),
                        "name=" + prefix + "-" + (done + i)));
            }
            ExecutorService pool = Executors.newCachedThreadPool();
            try {
                List<Future<?>> running = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    ChildJvm child = children.get(i);
                    int trial = done + i;
                    // even trials: the dead waiter is at the head of the line; odd: one live waiter is before it
                    running.add(pool.submit(() -> killOne(child, prefix + "-" + trial, trial % 2, outcome, history,
                            pool)));
                }
                for (Future<?> trial : running) {
                    trial.get(WAIT_MILLIS * 4, TimeUnit.MILLISECONDS);
                }
            }
            finally {
                pool.shutdownNow();
                children.forEach(ChildJvm::close);
            }
        }
        outcome.overlaps = history.sweep().overlaps();
        System.out.printf("scenario 14 %s: kill to next %s; late %d, out of order %d, overlaps %d, missing %d%n",
                prefix, new Stats(outcome.killToNext), outcome.late, outcome.outOfOrder, outcome.overlaps,
                outcome.missing);
        return outcome;
    }

    /** {@code before} live waiters join the line, then the child, then the rest; the child dies; the holder leaves. */
    private Void killOne(ChildJvm child, String name, int before, Outcome outcome, History history,
            ExecutorService pool) throws Exception {
        child.awaitLine(l -> l.equals("READY"), Duration.ofSeconds(60));
        CompletableFuture<Void> release = new CompletableFuture<>();
        Future<long[]> holder = pool.submit(() -> holdUntil(holderClient.getFairLock(name), release));
        awaitHeld(name);
        List<Future<long[]>> waiters = new ArrayList<>();
        int inLine = 0;
        for (int i = 0; i < LIVE_WAITERS; i++) {
            if (i == before) {
                child.send("acquire");
                awaitLine(name, ++inLine);
            }
            ReentrantDistributedLock lock = waiterClients.get(i).getFairLock(name);
            waiters.add(pool.submit(() -> waitFor(lock)));
            awaitLine(name, ++inLine);
        }
        child.kill();
        long killedAt = System.nanoTime();
        Thread.sleep(100);
        release.complete(null);
        long[] held = holder.get(10, TimeUnit.SECONDS);
        history.record("holder", "h", name, held[2], held[0], held[1]);

        List<long[]> got = new ArrayList<>();
        for (Future<long[]> waiter : waiters) {
            got.add(waiter.get(WAIT_MILLIS * 2, TimeUnit.MILLISECONDS));
        }
        long next = got.get(before)[0]; // the waiter right behind the dead one
        long lastIn = 0;
        synchronized (outcome) {
            outcome.trials++;
            if (next == 0 || ms(next - killedAt) > BOUND_MILLIS) {
                outcome.late++;
            }
            if (next != 0) {
                outcome.killToNext.add(ms(next - killedAt));
            }
            for (int i = 0; i < got.size(); i++) {
                long[] w = got.get(i);
                if (w[0] == 0) {
                    outcome.missing++;
                    continue;
                }
                history.record("waiter-" + i, "w", name, w[2], w[0], w[1]);
                if (w[0] < lastIn) {
                    outcome.outOfOrder++; // got in before a waiter that joined the line earlier
                }
                lastIn = Math.max(lastIn, w[0]);
            }
        }
        System.out.printf("scenario 14 trial %s (dead waiter at place %d): killed at +0 ms, holder left %+d ms, "
                        + "waiters in at %s%n", name, before + 1, ms(held[1] - killedAt),
                got.stream().map(w -> w[0] == 0 ? "never" : String.format(Locale.ROOT, "%+d ms", ms(w[0] - killedAt)))
                        .toList());
        return null;
    }

    /** {acquired, release invoked, token}: holds the lock until told, on one thread (a thread owns its holds). */
    private static long[] holdUntil(ReentrantDistributedLock lock, CompletableFuture<Void> release) throws Exception {
        lock.lock();
        long acquired = System.nanoTime();
        long token = lock.fencingToken();
        release.get();
        long released = System.nanoTime();
        lock.unlock();
        return new long[] {acquired, released, token};
    }

    /** {acquired, release invoked, token}, or zeros if not acquired within {@link #WAIT_MILLIS}. */
    private static long[] waitFor(ReentrantDistributedLock lock) throws InterruptedException {
        if (!lock.tryLock(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
            return new long[3];
        }
        long acquired = System.nanoTime();
        long token = lock.fencingToken();
        Thread.sleep(30);
        long released = System.nanoTime();
        lock.unlock();
        return new long[] {acquired, released, token};
    }

    private void awaitHeld(String name) throws InterruptedException {
        ReentrantDistributedLock lock = holderClient.getFairLock(name);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!lock.isLocked()) {
            assertThat(System.nanoTime()).as("holder of %s in", name).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /**
     * Waits until {@code length} waiters stand in the line: only Redis knows the order it received them in, so
     * the line is read there (layout: line.lua, a sorted set at the lock's key + ":line").
     */
    private void awaitLine(String name, int length) throws InterruptedException {
        String line = holderClient.getFairLock(name).getKey() + ":line";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (redis.commands().zcard(line) < length) {
            assertThat(System.nanoTime()).as("%d waiters in the line of %s", length, name).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
