package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
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
 * Scenario 13: reader threads of three clients take and give back the read lock of one name without pause,
 * their holds overlapping so that the read side is never empty on its own; writers of two clients arrive
 * every few hundred ms. A waiting writer goes before readers that arrive after it, so it waits only for the
 * readers already inside: every writer's wait must stay under {@link #MAX_WAIT_MILLIS}, and no writer may
 * share the lock with anyone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(180)
class Scenario13ReadersChurnIT {

    static final int CLIENTS = 3;
    static final int READERS_PER_CLIENT = 4;
    static final int WRITERS = 2;
    static final long LONGEST_READ_MILLIS = 80;
    /** The readers inside when a writer arrives leave within 80 ms; the rest is wake-up and a busy machine. */
    static final long MAX_WAIT_MILLIS = 1_000;
    static final Duration RUN = Duration.ofSeconds(20);
    static final Duration CONTROL_RUN = Duration.ofSeconds(10);
    static final long WRITER_WAIT_MILLIS = 5_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ScenarioRunner<Outcome, Outcome> scenario = new ScenarioRunner<>("13",
            "readers churning while writers wait");

    /** One outermost hold: when the acquisition returned and when the release was invoked, in nanos. */
    record Hold(boolean writer, long acquired, long released) {

        boolean overlaps(Hold other) {
            return other != this && other.acquired < released && acquired < other.released;
        }
    }

    static final class Outcome {
        final List<Long> writerWaits = new ArrayList<>();
        long reads;
        long writerTimeouts;
        long readerTimeouts;
        long overlaps;

        long overBound() {
            return writerWaits.stream().filter(w -> w > MAX_WAIT_MILLIS).count();
        }
    }

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, control) -> {
            Stats waits = new Stats(real.writerWaits);
            long violations = real.overBound() + real.overlaps;
            Stats brokenWaits = new Stats(control.writerWaits);
            return new ReliabilityReport.Figures(
                    String.format(Locale.ROOT, "%d s: %d readers in %d clients (holds 20–%d ms, back at once), %d "
                                    + "writers arriving every 200–600 ms: %d reads, %d writes", RUN.toSeconds(),
                            CLIENTS * READERS_PER_CLIENT, CLIENTS, LONGEST_READ_MILLIS, WRITERS, real.reads,
                            real.writerWaits.size()),
                    violations,
                    String.format(Locale.ROOT, "writer wait p50 %d / p99 %d / max %d ms; %d writers timed out; %d "
                                    + "overlaps of a writer with anyone; %d reader timeouts", waits.percentile(50),
                            waits.percentile(99), waits.max(), real.writerTimeouts, real.overlaps,
                            real.readerTimeouts),
                    "every writer's wait ≤ " + MAX_WAIT_MILLIS + " ms; 0 overlaps",
                    violations == 0 && real.writerWaits.size() >= 20,
                    String.format(Locale.ROOT, "readers that pass a waiting writer: %d of %d writer waits over %d ms "
                                    + "(max %d ms, %d timed out after %d ms)", control.overBound(),
                            control.writerWaits.size(), MAX_WAIT_MILLIS, brokenWaits.max(), control.writerTimeouts,
                            WRITER_WAIT_MILLIS));
        });
    }

    @Test
    @Order(1)
    void everyWriterGetsInSoonAndAlone() throws Exception {
        Outcome real = scenario.real(() -> churn("churn", RUN));
        assertThat(real.overlaps).as("writer holds overlapping another hold").isZero();
        assertThat(new Stats(real.writerWaits).max()).as("longest writer wait").isLessThanOrEqualTo(MAX_WAIT_MILLIS);
        assertThat(real.writerWaits).hasSizeGreaterThanOrEqualTo(20);
    }

    @Test
    @Order(2)
    void checkerCatchesReadersThatPassAWaitingWriter() throws Exception {
        Outcome control = scenario.control(() -> {
            try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.RW_ACQUIRE_IGNORES_WAITING_WRITER)) {
                return churn("starve", CONTROL_RUN);
            }
        });
        assertThat(control.overBound()).as("writer waits over the bound").isPositive();
    }

    private Outcome churn(String name, Duration run) throws Exception {
        List<RedisLockClient> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            clients.add(RedisLockClient.builder(redis.newConnectionFactory()).build());
        }
        ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> waits = new ConcurrentLinkedQueue<>();
        AtomicLong writerTimeouts = new AtomicLong();
        AtomicLong readerTimeouts = new AtomicLong();
        long end = System.nanoTime() + run.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS * READERS_PER_CLIENT + WRITERS);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (RedisLockClient client : clients) {
                for (int r = 0; r < READERS_PER_CLIENT; r++) {
                    workers.add(pool.submit(() -> read(client.getReadWriteLock(name).readLock(), end, holds,
                            readerTimeouts)));
                }
            }
            for (int w = 0; w < WRITERS; w++) {
                RedisLockClient client = clients.get(w);
                workers.add(pool.submit(() -> write(client.getReadWriteLock(name).writeLock(), end, holds, waits,
                        writerTimeouts)));
            }
            for (Future<?> worker : workers) {
                worker.get(run.toMillis() + 3 * WRITER_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
        finally {
            pool.shutdownNow();
            clients.forEach(RedisLockClient::close);
        }
        Outcome outcome = new Outcome();
        outcome.writerWaits.addAll(waits);
        outcome.writerTimeouts = writerTimeouts.get();
        outcome.readerTimeouts = readerTimeouts.get();
        List<Hold> all = List.copyOf(holds);
        outcome.reads = all.stream().filter(h -> !h.writer()).count();
        // a writer's hold may touch no other hold; readers share among themselves
        outcome.overlaps = all.stream().filter(Hold::writer).mapToLong(w -> all.stream().filter(w::overlaps).count())
                .sum();
        System.out.printf("scenario 13 %s: %d reads, writer waits %s, %d writer timeouts, %d overlaps, %d reader "
                        + "timeouts%n", name, outcome.reads, new Stats(outcome.writerWaits), outcome.writerTimeouts,
                outcome.overlaps, outcome.readerTimeouts);
        return outcome;
    }

    private static Void read(ReentrantDistributedLock read, long end, ConcurrentLinkedQueue<Hold> holds,
            AtomicLong timeouts) throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (System.nanoTime() < end) {
            if (!read.tryLock(WRITER_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                timeouts.incrementAndGet();
                continue;
            }
            long acquired = System.nanoTime();
            Thread.sleep(20 + random.nextLong(LONGEST_READ_MILLIS - 20));
            holds.add(new Hold(false, acquired, System.nanoTime()));
            read.unlock();
        }
        return null;
    }

    private static Void write(ReentrantDistributedLock write, long end, ConcurrentLinkedQueue<Hold> holds,
            ConcurrentLinkedQueue<Long> waits, AtomicLong timeouts) throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (true) {
            Thread.sleep(200 + random.nextLong(400));
            if (System.nanoTime() >= end) {
                return null;
            }
            long invoked = System.nanoTime();
            if (!write.tryLock(WRITER_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                timeouts.incrementAndGet();
                waits.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - invoked));
                continue;
            }
            long acquired = System.nanoTime();
            waits.add(TimeUnit.NANOSECONDS.toMillis(acquired - invoked));
            Thread.sleep(10);
            holds.add(new Hold(true, acquired, System.nanoTime()));
            write.unlock();
        }
    }
}
