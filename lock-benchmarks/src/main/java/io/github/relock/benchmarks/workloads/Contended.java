package io.github.relock.benchmarks.workloads;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;

/**
 * W3 and W6: several independent clients (own connections, own client ids, as separate processes would
 * be), several threads each, all on one key; W3 through the plain lock, W6 through the fair one. The
 * critical section only checks mutual exclusion, so the lock hand-off is all that is measured. Ops =
 * acquisitions; latency = the wait inside {@code lock()}.
 */
public final class Contended implements Workload {

    private final String id;
    private final String lockKind;
    private final BiFunction<LockClient, String, BenchLock> handle;
    private final String remark;
    private final int clients;
    private final int threadsPerClient;

    private Contended(String id, String lockKind, BiFunction<LockClient, String, BenchLock> handle, String remark,
            int clients, int threadsPerClient) {
        this.id = id;
        this.lockKind = lockKind;
        this.handle = handle;
        this.remark = remark;
        this.clients = clients;
        this.threadsPerClient = threadsPerClient;
    }

    public static Contended w3(int clients, int threadsPerClient) {
        return new Contended("W3", "", LockClient::lock, "", clients, threadsPerClient);
    }

    public static Contended w6(int clients, int threadsPerClient) {
        // which waiter reached Redis first is known only inside Redis, so the client side cannot judge the order
        return new Contended("W6", "fair lock, ", LockClient::fairLock, "; first-come-first-served order is not "
                + "checked here (relock's FairLockTest checks it against the line Redis keeps)", clients,
                threadsPerClient);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String description() {
        return id + ": contended, " + lockKind + clients + " independent clients x " + threadsPerClient
                + " threads on one key; ops = acquisitions, latency = wait in lock()" + remark;
    }

    @Override
    public boolean needsLockKinds() {
        return !lockKind.isEmpty();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public Measurement run(LockLibrary library, RunContext context, boolean count) {
        context.settle();
        String name = context.freshNames(id) + "-shared";
        List<LockClient> opened = new ArrayList<>();
        try {
            OverlapGuard guard = new OverlapGuard();
            List<LoadDriver.Operation> operations = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                LockClient client = library.connect(context.target(), null);
                opened.add(client);
                for (int t = 0; t < threadsPerClient; t++) {
                    BenchLock lock = handle.apply(client, name);
                    operations.add(() -> {
                        long start = System.nanoTime();
                        lock.lock();
                        long waited = System.nanoTime() - start;
                        guard.enter();
                        guard.exit();
                        lock.unlock();
                        return waited;
                    });
                }
            }
            return LoadDriver.drive(context, count, library.id(), id, clients + "x" + threadsPerClient, operations,
                    new OverlapGuard[] {guard}, "");
        }
        finally {
            // the last release messages may still be on their way to the other clients' listeners
            pause(100);
            opened.forEach(LockClient::close);
        }
    }
}
