package io.github.relock.benchmarks.workloads;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;

/**
 * W5: a read-write lock under a read-mostly load. The W3 layout (several independent clients, several
 * threads each, one key), but each operation takes the read lock with probability {@value #READ_SHARE},
 * else the write lock. Readers may be inside together, a writer must be alone; the guard checks both.
 * Ops = acquisitions of either side; latency = the wait inside {@code lock()}, also split into read
 * waits and write waits, since a starved writer would vanish among nine times as many readers.
 */
public final class ReadMostly implements Workload {

    static final double READ_SHARE = 0.9;
    static final String READ = "read";
    static final String WRITE = "write";

    /** Thread i draws the same reads and writes for every library, so no library gets an easier sequence. */
    private static final long SEED = 0x5EEDL;

    private final int clients;
    private final int threadsPerClient;

    public ReadMostly(int clients, int threadsPerClient) {
        this.clients = clients;
        this.threadsPerClient = threadsPerClient;
    }

    @Override
    public String id() {
        return "W5";
    }

    @Override
    public String description() {
        return "W5: read-mostly, read-write lock, " + clients + " independent clients x " + threadsPerClient
                + " threads on one key, each operation a read with probability " + READ_SHARE
                + ", else a write; ops = acquisitions of either side, latency = wait in lock()";
    }

    @Override
    public boolean needsLockKinds() {
        return true;
    }

    @Override
    public Measurement run(LockLibrary library, RunContext context, boolean count) {
        context.settle();
        String name = context.freshNames("W5") + "-shared";
        List<LockClient> opened = new ArrayList<>();
        try {
            OverlapGuard guard = new OverlapGuard();
            List<LoadDriver.Operation> operations = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                LockClient client = library.connect(context.target(), null);
                opened.add(client);
                for (int t = 0; t < threadsPerClient; t++) {
                    operations.add(new ReadOrWrite(client.readLock(name), client.writeLock(name), guard,
                            new SplittableRandom(SEED + operations.size())));
                }
            }
            return LoadDriver.drive(context, count, library.id(), "W5", clients + "x" + threadsPerClient, operations,
                    new OverlapGuard[] {guard}, "");
        }
        finally {
            // the last release messages may still be on their way to the other clients' listeners
            pause(100);
            opened.forEach(LockClient::close);
        }
    }

    /** One thread's operation; it runs on that thread only, so its random source and last kind need no locking. */
    private static final class ReadOrWrite implements LoadDriver.Operation {

        private final BenchLock read;
        private final BenchLock write;
        private final OverlapGuard guard;
        private final SplittableRandom random;
        private String kind = "";

        ReadOrWrite(BenchLock read, BenchLock write, OverlapGuard guard, SplittableRandom random) {
            this.read = read;
            this.write = write;
            this.guard = guard;
            this.random = random;
        }

        @Override
        public long run() {
            boolean reading = random.nextDouble() < READ_SHARE;
            kind = reading ? READ : WRITE;
            BenchLock lock = reading ? read : write;
            long start = System.nanoTime();
            lock.lock();
            long waited = System.nanoTime() - start;
            if (reading) {
                guard.enterShared();
                guard.exitShared();
            }
            else {
                guard.enter();
                guard.exit();
            }
            lock.unlock();
            return waited;
        }

        @Override
        public String lastKind() {
            return kind;
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
