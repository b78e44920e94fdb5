package io.github.relock.benchmarks.workloads;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.github.relock.benchmarks.Options;
import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary.BenchLock;
import io.github.relock.benchmarks.libraries.LockLibrary.LockClient;
import io.github.relock.benchmarks.libraries.RedisTarget;
import io.github.relock.benchmarks.redis.CommandStats;
import io.github.relock.benchmarks.redis.MonitorTap;
import io.github.relock.benchmarks.redis.NodeCounters;
import io.github.relock.benchmarks.redis.NodeCounters.Snapshot;
import io.github.relock.benchmarks.report.ClusterResult;
import io.github.relock.benchmarks.report.RenewalResult;
import io.lettuce.core.cluster.SlotHash;

/**
 * S4: W2 and W3 on a standalone server and on a 3-primary cluster, with the same counting
 * for both: client commands per operation (MONITOR on every node), PUBLISH and SPUBLISH calls per operation
 * (INFO commandstats on every node), and what the cluster bus carries to the nodes per announced release
 * (classic PUBLISH is broadcast to every node; SPUBLISH stays in the shard). Then renewal rounds of
 * {@value #RENEWAL_LOCKS} watchdog locks on the cluster, their names spread over slots or packed in
 * {@value #FEW_SLOTS}. One run per cell: the counts are what matters, and they do not move with the neighbours.
 */
public final class ClusterLoad {

    static final int RENEWAL_LOCKS = 1000;
    static final int FEW_SLOTS = 8;
    /** Holds per renewal script call in relock ({@code RenewalBatches.SIZE}); the floor per round follows from it. */
    private static final int BATCH = 256;
    private static final Duration IDLE = Duration.ofSeconds(1);
    private static final Duration RENEWAL_WINDOW = Duration.ofSeconds(5);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);

    /** Where one run goes: the target its clients connect to and the nodes whose counters are read. */
    public record Topology(String name, RedisTarget target, List<NodeCounters> nodes) {

        void flush() {
            nodes.forEach(NodeCounters::flushAll);
        }
    }

    private final Options options;
    private int runs;

    public ClusterLoad(Options options) {
        this.options = options;
    }

    /** W2 or W3 of {@code library} on {@code topology}. */
    public ClusterResult run(LockLibrary library, String workload, Topology topology) {
        topology.flush();
        String names = "s4-" + workload.toLowerCase(java.util.Locale.ROOT) + "-" + (++runs);
        List<LockClient> clients = new ArrayList<>();
        try {
            List<Runnable> operations = new ArrayList<>();
            List<OverlapGuard> guards = new ArrayList<>();
            String threads;
            if (workload.equals("W2")) {
                LockClient client = library.connect(topology.target(), null);
                clients.add(client);
                for (int t = 0; t < options.threads(); t++) {
                    BenchLock lock = client.lock(names + "-t" + t);
                    OverlapGuard guard = new OverlapGuard();
                    guards.add(guard);
                    operations.add(pair(lock, guard));
                }
                threads = Integer.toString(options.threads());
            }
            else {
                OverlapGuard guard = new OverlapGuard();
                guards.add(guard);
                for (int c = 0; c < options.clients(); c++) {
                    LockClient client = library.connect(topology.target(), null);
                    clients.add(client);
                    for (int t = 0; t < options.clientThreads(); t++) {
                        operations.add(pair(client.lock(names + "-shared"), guard));
                    }
                }
                threads = options.clients() + "x" + options.clientThreads();
            }
            return drive(library.id(), workload, topology, threads, operations, guards);
        }
        finally {
            sleep(100); // the last release messages may still be on their way
            clients.forEach(LockClient::close);
        }
    }

    private static Runnable pair(BenchLock lock, OverlapGuard guard) {
        return () -> {
            lock.lock();
            guard.enter();
            guard.exit();
            lock.unlock();
        };
    }

    private enum Phase { WARMUP, MEASURE, COUNT, STOP }

    private ClusterResult drive(String library, String workload, Topology topology, String threads,
            List<Runnable> operations, List<OverlapGuard> guards) {
        // what the nodes read with nobody locking: gossip and their own file reads, taken out of the bus bytes
        Snapshot idleBefore = NodeCounters.readAll(topology.nodes());
        long idleStart = System.nanoTime();
        sleep(IDLE.toMillis());
        Snapshot idle = NodeCounters.readAll(topology.nodes()).minus(idleBefore);
        double idleBusPerNano = idle.nonClientBytes() / (double) (System.nanoTime() - idleStart);

        java.util.concurrent.atomic.AtomicReference<Phase> phase = new java.util.concurrent.atomic.AtomicReference<>(
                Phase.WARMUP);
        long[][] done = new long[operations.size()][Phase.values().length];
        long[] errors = new long[operations.size()];
        Throwable[] firstError = new Throwable[1];
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < operations.size(); i++) {
            int index = i;
            Runnable operation = operations.get(i);
            Thread worker = new Thread(() -> {
                while (phase.get() != Phase.STOP) {
                    try {
                        operation.run();
                    }
                    catch (RuntimeException ex) {
                        errors[index]++;
                        synchronized (firstError) {
                            if (firstError[0] == null) {
                                firstError[0] = ex;
                            }
                        }
                        sleep(10);
                        continue;
                    }
                    done[index][phase.get().ordinal()]++; // the phase an operation ends in is the one it counts for
                }
            }, "bench-s4-" + library + "-" + workload + "-" + i);
            worker.setDaemon(true);
            workers.add(worker);
        }
        workers.forEach(Thread::start);
        sleep(options.warmup().toMillis());

        Snapshot before = NodeCounters.readAll(topology.nodes());
        long start = System.nanoTime();
        phase.set(Phase.MEASURE);
        sleep(options.duration().toMillis());
        phase.set(Phase.WARMUP);
        long nanos = System.nanoTime() - start;
        Snapshot window = NodeCounters.readAll(topology.nodes()).minus(before);

        Map<String, Long> mix = new TreeMap<>();
        List<MonitorTap> taps = new ArrayList<>();
        try {
            topology.nodes().forEach(node -> taps.add(MonitorTap.attach(node.target())));
            phase.set(Phase.COUNT);
            sleep(options.countDuration().toMillis());
            phase.set(Phase.WARMUP);
        }
        finally {
            taps.forEach(MonitorTap::close);
        }
        taps.forEach(tap -> tap.clientCommands().forEach((name, n) -> mix.merge(name, n, Long::sum)));
        phase.set(Phase.STOP);
        for (Thread worker : workers) {
            try {
                worker.join(JOIN_TIMEOUT.toMillis());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        long measured = 0;
        long counted = 0;
        long errorCount = 0;
        for (int i = 0; i < operations.size(); i++) {
            measured += done[i][Phase.MEASURE.ordinal()];
            counted += done[i][Phase.COUNT.ordinal()];
            errorCount += errors[i];
        }
        if (firstError[0] != null) {
            System.err.printf("%s S4 %s %s: %d operation(s) failed, first: %s%n", library, workload, topology.name(),
                    errorCount, firstError[0]);
        }
        long stuck = workers.stream().filter(Thread::isAlive).count();
        long overlaps = guards.stream().mapToLong(OverlapGuard::violations).sum();
        if (measured == 0) {
            return ClusterResult.failed(library, workload, topology.name(), "no operation completed"
                    + (firstError[0] == null ? "" : ": " + firstError[0]));
        }
        long countedTotal = mix.values().stream().mapToLong(Long::longValue).sum();
        Map<String, Double> mixPerOp = new TreeMap<>();
        long countedOps = counted;
        mix.forEach((name, n) -> mixPerOp.put(name, countedOps > 0 ? (double) n / countedOps : Double.NaN));
        long publishes = window.commands().calls().getOrDefault("publish", 0L);
        long spublishes = window.commands().calls().getOrDefault("spublish", 0L);
        long releases = publishes + spublishes;
        double busBytes = window.nonClientBytes() < 0 ? Double.NaN : window.nonClientBytes() - idleBusPerNano * nanos;
        boolean cluster = topology.target().isCluster();
        return new ClusterResult(library, workload, topology.name(), threads, measured / (nanos / 1e9),
                counted > 0 ? (double) countedTotal / counted : Double.NaN, mixPerOp,
                (double) publishes / measured, (double) spublishes / measured,
                cluster && releases > 0 ? (double) (window.publishReceived() + window.shardPublishReceived()) / releases
                        : Double.NaN,
                cluster && releases > 0 ? Math.max(0, busBytes) / releases : Double.NaN, overlaps,
                errorCount + stuck, stuck > 0 ? stuck + " thread(s) still in lock() " + JOIN_TIMEOUT.toSeconds()
                        + " s after the run" : "");
    }

    /**
     * {@value #RENEWAL_LOCKS} locks of {@code library} held with no lease on {@code cluster}: MONITOR on every
     * node counts what each renewal round sends, for names spread over slots and for names packed in
     * {@value #FEW_SLOTS} slots.
     */
    public List<RenewalResult> renewals(LockLibrary library, Topology cluster) {
        List<RenewalResult> results = new ArrayList<>();
        String base = "s4-renew-" + (++runs);
        List<String> spread = new ArrayList<>();
        for (int i = 0; i < RENEWAL_LOCKS; i++) {
            spread.add(base + "-" + i);
        }
        results.add(renewal(library, cluster, "spread", spread));
        results.add(renewal(library, cluster, FEW_SLOTS + " slots", packed(library, base)));
        return results;
    }

    /** Names whose keys fall in {@value #FEW_SLOTS} slots, {@value #RENEWAL_LOCKS} of them. */
    private static List<String> packed(LockLibrary library, String base) {
        Set<Integer> slots = new LinkedHashSet<>();
        for (int k = 0; slots.size() < FEW_SLOTS; k++) {
            slots.add(SlotHash.getSlot(library.lockKey(base + "-seed" + k)));
        }
        List<String> names = new ArrayList<>();
        for (long i = 0; names.size() < RENEWAL_LOCKS; i++) {
            String name = base + "-p" + i;
            if (slots.contains(SlotHash.getSlot(library.lockKey(name)))) {
                names.add(name);
            }
        }
        return names;
    }

    private RenewalResult renewal(LockLibrary library, Topology cluster, String layout, List<String> names) {
        cluster.flush();
        Map<Integer, Integer> perSlot = new HashMap<>();
        names.forEach(name -> perSlot.merge(SlotHash.getSlot(library.lockKey(name)), 1, Integer::sum));
        int floor = perSlot.values().stream().mapToInt(n -> (n + BATCH - 1) / BATCH).sum();
        Duration timeout = options.watchdogTimeout();
        try (LockClient client = library.connect(cluster.target(), timeout)) {
            List<BenchLock> held = new ArrayList<>();
            for (String name : names) {
                BenchLock lock = client.lock(name);
                lock.lock();
                held.add(lock);
            }
            sleep(timeout.toMillis() / 3 + 200); // renewal in its rhythm
            // no MONITOR here: it slows a round of many calls down until leases run out
            Snapshot before = NodeCounters.readAll(cluster.nodes());
            sleep(RENEWAL_WINDOW.toMillis());
            CommandStats window = NodeCounters.readAll(cluster.nodes()).commands().minus(before.commands());
            long lost = 0;
            for (BenchLock lock : held) {
                try {
                    lock.unlock();
                }
                catch (RuntimeException ex) {
                    lost++;
                }
            }
            // both libraries' renewal scripts check each lock with one HEXISTS: rounds = HEXISTS calls / locks
            double rounds = window.calls().getOrDefault("hexists", 0L) / (double) names.size();
            Map<String, Double> perRound = new TreeMap<>();
            for (String command : List.of("evalsha", "eval", "cluster")) {
                long n = window.calls().getOrDefault(command, 0L);
                if (n > 0) {
                    perRound.put(command, n / rounds);
                }
            }
            double scripts = (window.calls().getOrDefault("evalsha", 0L) + window.calls().getOrDefault("eval", 0L))
                    / rounds;
            return new RenewalResult(library.id(), layout, names.size(), perSlot.size(), floor, rounds, scripts,
                    perRound, lost, rounds > 0 ? "" : "no renewal round in the window");
        }
        catch (RuntimeException ex) {
            System.err.println(library.id() + " S4 renewal " + layout + " failed: " + ex);
            return new RenewalResult(library.id(), layout, names.size(), perSlot.size(), floor, 0, Double.NaN,
                    Map.of(), 0, "failed: " + ex);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
