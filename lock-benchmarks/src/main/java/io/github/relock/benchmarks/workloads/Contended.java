package io.github.relock.benchmarks.workloads;

import java.util.ArrayList;
import java.util.List;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;

/**
 * W3: several independent clients (own connections, own client ids, as separate processes would be),
 * several threads each, all on one key. The critical section only checks mutual exclusion, so the lock
 * hand-off is all that is measured. Ops = acquisitions; latency = the wait inside {@code lock()}.
 */
public final class Contended implements Workload {

    private final int clients;
    private final int threadsPerClient;

    public Contended(int clients, int threadsPerClient) {
        this.clients = clients;
        this.threadsPerClient = threadsPerClient;
    }

    @Override
    public String id() {
        return "W3";
    }

    @Override
    public String description() {
        return "W3: contended, " + clients + " independent clients x " + threadsPerClient
                + " threads on one key; ops = acquisitions, latency = wait in lock()";
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
        String name = context.freshNames("W3") + "-shared";
        List<LockClient> opened = new ArrayList<>();
        try {
            OverlapGuard guard = new OverlapGuard();
            List<LoadDriver.Operation> operations = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                LockClient client = library.connect(context.target(), null);
                opened.add(client);
                for (int t = 0; t < threadsPerClient; t++) {
                    BenchLock lock = client.lock(name);
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
            return LoadDriver.drive(context, count, library.id(), "W3", clients + "x" + threadsPerClient, operations,
                    new OverlapGuard[] {guard}, "");
        }
        finally {
            // the last release messages may still be on their way to the other clients' listeners
            pause(100);
            opened.forEach(LockClient::close);
        }
    }
}
