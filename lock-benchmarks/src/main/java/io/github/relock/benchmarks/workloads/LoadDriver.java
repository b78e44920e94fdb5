package io.github.relock.benchmarks.workloads;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

import io.github.relock.benchmarks.redis.CommandStats;
import io.github.relock.benchmarks.redis.MonitorTap;

/**
 * Runs one operation in a loop on several threads through three phases: warm-up (not recorded), a
 * command-counting pass with MONITOR attached (operations counted, latencies not recorded), and the
 * measured window (latencies recorded, {@code INFO commandstats} read at both ends). Threads never stop
 * between phases, so pools, JIT and contention are already in their steady state when measuring starts.
 */
final class LoadDriver {

    /** One unit of work on one thread; returns the latency to record, in nanoseconds. */
    @FunctionalInterface
    interface Operation {
        long run() throws Exception;

        /**
         * For a workload with two kinds of operation (W5's reads and writes): the kind of the one that just
         * ran, so that its latency is also recorded apart from the other kind's; "" when there is one kind.
         */
        default String lastKind() {
            return "";
        }
    }

    private enum Phase { WARMUP, COUNT, MEASURE, STOP }

    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(120);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);
    /** A waiter still in lock() this long after the window is a stall (a lost wake-up sleeps out a lease). */
    private static final Duration SLOW_DRAIN = Duration.ofSeconds(5);

    private volatile Phase phase = Phase.WARMUP;

    private final class Worker extends Thread {
        final Operation operation;
        final Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        final Map<String, Histogram> latencyByKind = new TreeMap<>();
        long counted;
        long measured;
        long errors;
        @Nullable Throwable firstError;

        Worker(String name, Operation operation) {
            super(name);
            this.operation = operation;
            setDaemon(true);
        }

        @Override
        public void run() {
            while (phase != Phase.STOP) {
                long nanos;
                try {
                    nanos = operation.run();
                }
                catch (Throwable ex) {
                    errors++;
                    if (firstError == null) {
                        firstError = ex;
                    }
                    pause(); // a broken library must not turn the run into a hot error loop
                    continue;
                }
                Phase now = phase; // the phase an operation ends in is the one it counts for
                if (now == Phase.MEASURE) {
                    long recorded = Math.min(Math.max(nanos, 0), HIGHEST_NANOS);
                    latency.recordValue(recorded);
                    String kind = operation.lastKind();
                    if (!kind.isEmpty()) {
                        latencyByKind.computeIfAbsent(kind, k -> new Histogram(HIGHEST_NANOS, 3)).recordValue(recorded);
                    }
                    measured++;
                }
                else if (now == Phase.COUNT) {
                    counted++;
                }
            }
        }
    }

    /**
     * Drives {@code operations} (one per thread) through the phases and returns what the measured window
     * saw; {@code count} adds the MONITOR pass before it.
     */
    static Measurement drive(RunContext context, boolean count, String library, String workload, String threads,
            List<Operation> operations, OverlapGuard[] guards, String note) {
        return new LoadDriver().run(context, count, library, workload, threads, operations, guards, note);
    }

    private Measurement run(RunContext context, boolean count, String library, String workload, String threads,
            List<Operation> operations, OverlapGuard[] guards, String note) {
        List<Worker> workers = new ArrayList<>();
        for (int i = 0; i < operations.size(); i++) {
            workers.add(new Worker("bench-" + library + "-" + workload + "-" + i, operations.get(i)));
        }
        workers.forEach(Thread::start);

        sleep(context.options().warmup());

        Map<String, Long> mix = Map.of();
        long clientCommands = 0;
        boolean counting = count && !context.options().countDuration().isZero();
        if (counting) {
            try (MonitorTap tap = MonitorTap.attach(context.target())) {
                phase = Phase.COUNT;
                sleep(context.options().countDuration());
                phase = Phase.WARMUP;
                tap.close(); // at once: operations in flight at both ends of the pass roughly cancel out
                mix = tap.clientCommands();
                clientCommands = tap.clientTotal();
            }
        }

        CommandStats before = context.admin().commandStats();
        CpuClock.Reading cpuBefore = CpuClock.read(context.admin());
        phase = Phase.MEASURE;
        long start = System.nanoTime();
        sleep(context.options().duration());
        phase = Phase.STOP;
        long end = System.nanoTime();
        CpuClock.Delta cpu = CpuClock.read(context.admin()).since(cpuBefore);
        CommandStats calls = context.admin().commandStats().minus(before);

        Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        Map<String, Histogram> latencyByKind = new TreeMap<>();
        long counted = 0;
        long measured = 0;
        long errors = 0;
        Throwable firstError = null;
        for (Worker worker : workers) {
            join(worker);
            latency.add(worker.latency);
            worker.latencyByKind.forEach((kind, h) -> latencyByKind.computeIfAbsent(kind,
                    k -> new Histogram(HIGHEST_NANOS, 3)).add(h));
            counted += worker.counted;
            measured += worker.measured;
            errors += worker.errors;
            if (firstError == null) {
                firstError = worker.firstError;
            }
        }
        long overlaps = 0;
        for (OverlapGuard guard : guards) {
            overlaps += guard.violations();
        }
        // an operation that ends after the window is not recorded, so a stall there would otherwise go unseen
        long drainNanos = System.nanoTime() - end;
        String fullNote = drainNanos < SLOW_DRAIN.toNanos() ? note : (note.isEmpty() ? "" : note + "; ")
                + String.format(Locale.ROOT, "last operation ended %.1f s after the window", drainNanos / 1e9);
        if (firstError != null) {
            System.err.printf("%s %s: %d operation(s) failed, first: %s%n", library, workload, errors, firstError);
            firstError.printStackTrace(System.err);
        }
        return new Measurement(library, workload, threads, measured, (end - start) / 1e9, latency, latencyByKind,
                calls.total(), counting ? counted : 0, mix, cpu.clientNanos(), cpu.redisNanos(), cpu.clientBytes(), overlaps,
                errors, fullNote);
    }

    private static void join(Worker worker) {
        try {
            worker.join(JOIN_TIMEOUT.toMillis());
            if (worker.isAlive()) {
                // a lock() that never returns: report it instead of hanging the whole run
                worker.errors++;
                worker.firstError = new IllegalStateException(worker.getName() + " still blocked "
                        + JOIN_TIMEOUT.toSeconds() + " s after the run ended");
                worker.interrupt();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
