package io.github.relock.benchmarks.workloads;

import java.util.List;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;

/**
 * W4: re-entry on one thread: {@code lock()} three times, then {@code unlock()} three times. Ops =
 * such sequences; latency = one sequence. Shows whether re-entry costs round trips.
 */
public final class Reentry implements Workload {

    private static final int DEPTH = 3;

    @Override
    public String id() {
        return "W4";
    }

    @Override
    public String description() {
        return "W4: re-entry, 1 thread: lock() x" + DEPTH + " then unlock() x" + DEPTH
                + "; ops = sequences, latency = one sequence";
    }

    @Override
    public Measurement run(LockLibrary library, RunContext context, boolean count) {
        context.settle();
        String name = context.freshNames("W4");
        try (LockClient client = library.connect(context.target(), null)) {
            BenchLock lock = client.lock(name);
            OverlapGuard guard = new OverlapGuard();
            LoadDriver.Operation sequence = () -> {
                long start = System.nanoTime();
                for (int i = 0; i < DEPTH; i++) {
                    lock.lock();
                }
                guard.enter();
                guard.exit();
                for (int i = 0; i < DEPTH; i++) {
                    lock.unlock();
                }
                return System.nanoTime() - start;
            };
            return LoadDriver.drive(context, count, library.id(), "W4", "1", List.of(sequence), new OverlapGuard[] {guard}, "");
        }
    }
}
