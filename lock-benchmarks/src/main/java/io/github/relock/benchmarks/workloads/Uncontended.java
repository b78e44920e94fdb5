package io.github.relock.benchmarks.workloads;

import java.util.ArrayList;
import java.util.List;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;

/**
 * W1 and W2: {@code lock()} + {@code unlock()} pairs, each thread on its own key, all threads on one
 * client. Nobody ever waits, so this is the cost of the lock's own round trips and bookkeeping.
 * Latency: one pair.
 */
public final class Uncontended implements Workload {

    private final String id;
    private final int threads;

    private Uncontended(String id, int threads) {
        this.id = id;
        this.threads = threads;
    }

    public static Uncontended w1() {
        return new Uncontended("W1", 1);
    }

    public static Uncontended w2(int threads) {
        return new Uncontended("W2", threads);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String description() {
        return id + ": uncontended, " + threads + " thread(s) on one client, each on its own key; "
                + "ops = lock()+unlock() pairs, latency = one pair";
    }

    @Override
    public Measurement run(LockLibrary library, RunContext context, boolean count) {
        context.settle();
        String names = context.freshNames(id);
        try (LockClient client = library.connect(context.target(), null)) {
            List<LoadDriver.Operation> operations = new ArrayList<>();
            OverlapGuard[] guards = new OverlapGuard[threads];
            for (int t = 0; t < threads; t++) {
                BenchLock lock = client.lock(names + "-t" + t);
                OverlapGuard guard = guards[t] = new OverlapGuard();
                operations.add(() -> {
                    long start = System.nanoTime();
                    lock.lock();
                    guard.enter();
                    guard.exit();
                    lock.unlock();
                    return System.nanoTime() - start;
                });
            }
            return LoadDriver.drive(context, count, library.id(), id, Integer.toString(threads), operations, guards, "");
        }
    }
}
