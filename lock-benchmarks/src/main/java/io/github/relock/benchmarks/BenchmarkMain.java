package io.github.relock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

import io.github.relock.benchmarks.libraries.CandidateRelockLibrary;
import io.github.relock.benchmarks.libraries.LeanLibrary;
import io.github.relock.benchmarks.libraries.LockLibrary;
import io.github.relock.benchmarks.libraries.RawLibrary;
import io.github.relock.benchmarks.libraries.RedisTarget;
import io.github.relock.benchmarks.libraries.RedissonLibrary;
import io.github.relock.benchmarks.libraries.RelockLibrary;
import io.github.relock.benchmarks.libraries.SpringIntegrationLibrary;
import io.github.relock.benchmarks.redis.NodeCounters;
import io.github.relock.benchmarks.redis.RedisAdmin;
import io.github.relock.benchmarks.report.ClusterResult;
import io.github.relock.benchmarks.report.Charts;
import io.github.relock.benchmarks.report.Environment;
import io.github.relock.benchmarks.report.LeftoverResult;
import io.github.relock.benchmarks.report.Report;
import io.github.relock.benchmarks.workloads.ClientThreads;
import io.github.relock.benchmarks.workloads.ClusterLoad;
import io.github.relock.benchmarks.workloads.Contended;
import io.github.relock.benchmarks.workloads.Leftovers;
import io.github.relock.benchmarks.workloads.Measurement;
import io.github.relock.benchmarks.workloads.ReadMostly;
import io.github.relock.benchmarks.workloads.Reentry;
import io.github.relock.benchmarks.workloads.RunContext;
import io.github.relock.benchmarks.workloads.Uncontended;
import io.github.relock.benchmarks.workloads.WatchdogLoad;
import io.github.relock.benchmarks.workloads.Workload;
import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;

/**
 * {@code java -jar lock-benchmarks.jar [flags]}: starts a redis-server on a free loopback port, runs
 * every chosen library through every chosen workload against it, stops it, prints a Markdown report;
 * with {@code --out=FILE} also writes it to FILE and its charts (PNG) beside it.
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        }
        catch (IllegalArgumentException ex) {
            System.err.println(ex.getMessage());
            System.exit(2);
            return;
        }
        if (options == null) {
            System.out.println(Options.usage());
            return;
        }
        Report report = run(options);
        System.out.print(report.render());
        if (options.out() != null) {
            try {
                write(report, options.out()).forEach(file -> System.err.println("written: " + file.toAbsolutePath()));
            }
            catch (IOException ex) {
                System.err.println("could not write the report or its charts (check --out=" + options.out() + "): " + ex);
                System.exit(1);
            }
        }
        // library threads (Netty, schedulers) must not keep the JVM alive after the report
        System.exit(0);
    }

    /**
     * The Markdown report to {@code out}, and its charts beside it ({@link Charts#write}).
     *
     * @return the report file, then the chart files
     */
    public static List<Path> write(Report report, Path out) throws IOException {
        Files.writeString(out, report.render());
        List<Path> written = new ArrayList<>(List.of(out));
        written.addAll(Charts.write(report, out));
        return written;
    }

    /** One full run; also what the smoke test calls. */
    public static Report run(Options options) {
        Environment environment = new Environment();
        Report report = new Report();
        try (RedisServer server = RedisServer.start();
                RedisAdmin admin = new RedisAdmin(new RedisTarget(server.host(), server.port()))) {
            describeRun(report, environment, options, server);
            RunContext context = new RunContext(options, admin);
            List<LockLibrary> libraries = libraries(options, environment);
            libraries.forEach(l -> report.describe(l.id() + ": " + l.description()));
            warmUp(libraries, options, admin);
            for (Workload workload : workloads(options)) {
                report.describe(workload.description());
                List<LockLibrary> running = new ArrayList<>();
                for (LockLibrary library : libraries) {
                    if (workload.needsLockKinds() && !library.hasLockKinds()) {
                        report.skip(library.id(), workload.id(), library.noLockKindsReason());
                    }
                    else {
                        running.add(library);
                    }
                }
                Map<String, List<Measurement>> runs = new LinkedHashMap<>();
                running.forEach(l -> runs.put(l.id(), new ArrayList<>()));
                for (int round = 0; round < options.rounds() && !running.isEmpty(); round++) {
                    // rotate the order, so no library always runs right after the same neighbour
                    for (int i = 0; i < running.size(); i++) {
                        LockLibrary library = running.get((i + round) % running.size());
                        progress(library.id() + " " + workload.id() + " round " + (round + 1) + "/" + options.rounds());
                        runs.get(library.id()).add(guarded(library, workload, context, round == 0));
                    }
                }
                runs.values().forEach(r -> report.add(Measurement.summarize(r)));
            }
            if (options.workloads().contains("W2")) {
                leftovers(libraries, context, report);
            }
            if (options.workloads().contains("watchdog")) {
                report.describe("watchdog: " + options.watchdogLocks() + " locks held by one thread with no lease, "
                        + "watchdog timeout " + options.watchdogTimeout().toMillis() + " ms for every library; "
                        + "every command in the window is renewal traffic");
                WatchdogLoad load = new WatchdogLoad();
                for (LockLibrary library : libraries) {
                    progress(library.id() + " watchdog");
                    report.add(load.run(library, context));
                }
            }
            if (options.workloads().contains("threads")) {
                report.describe("threads: one new client per library holds a lock with no lease through a renewal "
                        + "round (watchdog timeout " + ClientThreads.WATCHDOG_TIMEOUT.toMillis() + " ms), makes "
                        + "asynchronous calls and has a waiter woken by a release; the threads that appear meanwhile "
                        + "are counted by name, Lettuce's (lettuce-*) apart");
                ClientThreads count = new ClientThreads();
                for (LockLibrary library : libraries) {
                    progress(library.id() + " threads per client");
                    report.add(count.run(library, context));
                }
            }
            if (options.workloads().contains("W7")) {
                report.describe("W7: " + options.callers() + " callers on 100 keys, each holding 1 ms: relock's asynchronous calls in "
                        + "Reactor (and the candidate's, if given), Redisson's RLockReactive, relock's blocking calls on virtual threads (JDK 21+) and "
                        + "on a 200-thread pool; warm-up, measured window and MONITOR pass as for the other workloads");
                progress("W7 many callers");
                List<LockLibrary> relocks = libraries.stream().filter(l -> l.id().startsWith("relock")).toList();
                new io.github.relock.benchmarks.workloads.ManyCallers(options.callers()).run(context,
                        relocks.isEmpty() ? List.of(new RelockLibrary(environment.pinned("relock"))) : relocks)
                        .forEach(report::add);
            }
            if (options.workloads().contains("scale")) {
                report.describe(String.format(java.util.Locale.ROOT, "scale: S1 holds %,d locks with no lease on one "
                        + "client (heap and Redis memory per lock, what each key holds, renewal traffic over the "
                        + "watchdog window, locks lost); S3 locks %,d distinct keys once each from 16 threads (heap "
                        + "after GC at a tenth of them and at the end)", options.s1Locks(), options.s3Keys()));
                io.github.relock.benchmarks.workloads.ScaleLoad load = new io.github.relock.benchmarks.workloads.ScaleLoad();
                for (LockLibrary library : libraries) {
                    progress(library.id() + " scale");
                    report.add(load.run(library, context));
                }
            }
            if (options.workloads().contains("scale") || options.workloads().contains("S2")) {
                report.describe("S2: " + options.s2Waiters() + " asynchronous waiters on " + options.s2Keys()
                        + " keys over " + options.s2Clients() + " clients, all calling at once with a 30 s wait and a "
                        + "10 s lease; each holds its key " + options.s2Hold().toMillis() + " ms (50 ms on 1,000 keys: "
                        + "about 20,000 acquisitions/s), releases it and is done");
                io.github.relock.benchmarks.workloads.ManyWaiters load = new io.github.relock.benchmarks.workloads.ManyWaiters(
                        options.s2Waiters(), options.s2Keys(), options.s2Clients(), options.s2Hold());
                for (LockLibrary library : libraries) {
                    progress(library.id() + " S2 many waiters");
                    report.add(load.run(library, context));
                }
            }
            if (options.workloads().contains("scale") || options.workloads().contains("S4")) {
                cluster(libraries, options, context, server, report);
            }
            if (options.workloads().contains("annotation")) {
                progress("annotation overhead");
                io.github.relock.benchmarks.annotation.AnnotationOverhead.run(context, report);
            }
        }
        return report;
    }

    /**
     * S4: W2 and W3 on the harness's standalone server, then on a 3-primary cluster of
     * redis-server processes (lock-test-support's {@link RedisClusterSetup}), counted the same way; then renewal
     * rounds on the cluster. Libraries that cannot be pointed at a cluster are skipped, with the reason.
     */
    private static void cluster(List<LockLibrary> libraries, Options options, RunContext context, RedisServer server,
            Report report) {
        List<LockLibrary> able = libraries.stream().filter(LockLibrary::supportsCluster).toList();
        libraries.stream().filter(l -> !l.supportsCluster()).forEach(l -> report.describe("S4: " + l.id()
                + " skipped: the harness connects it to one server only"));
        if (able.isEmpty()) {
            return;
        }
        progress("S4 starting a 3-primary cluster");
        try (RedisClusterSetup setup = RedisClusterSetup.start();
                NodeCounters standaloneNode = new NodeCounters(context.target(), server.pid(), false)) {
            List<RedisServer> primaries = setup.nodes();
            List<NodeCounters> nodes = new ArrayList<>();
            try {
                for (RedisServer node : primaries) {
                    nodes.add(new NodeCounters(new RedisTarget(node.host(), node.port()), node.pid(), true));
                }
                report.describe("S4: W2 (" + options.threads() + " threads, own keys) and W3 (" + options.clients()
                        + " clients x " + options.clientThreads() + " threads, one key) on the standalone server and on "
                        + "a cluster of " + primaries.size() + " primaries, no replicas, Redis " + primaries.get(0).version()
                        + " on 127.0.0.1; one run each: " + options.warmup().toMillis() + " ms warm-up, "
                        + options.duration().toMillis() + " ms measured, " + options.countDuration().toMillis()
                        + " ms MONITOR pass on every node. Bus bytes: rchar of /proc/PID/io minus INFO "
                        + "total_net_input_bytes (client bytes), less a 1 s idle baseline; bus msgs: CLUSTER INFO "
                        + "cluster_stats_messages_publish(shard)_received; both per PUBLISH+SPUBLISH call");
                ClusterLoad load = new ClusterLoad(options);
                ClusterLoad.Topology standalone = new ClusterLoad.Topology("standalone", context.target(),
                        List.of(standaloneNode));
                ClusterLoad.Topology cluster = new ClusterLoad.Topology("cluster 3 primaries", RedisTarget.cluster(
                        primaries.stream().map(n -> n.host() + ":" + n.port()).toList()), nodes);
                for (LockLibrary library : able) {
                    for (String workload : List.of("W2", "W3")) {
                        for (ClusterLoad.Topology topology : List.of(standalone, cluster)) {
                            progress(library.id() + " S4 " + workload + " " + topology.name());
                            try {
                                report.add(load.run(library, workload, topology));
                            }
                            catch (RuntimeException ex) {
                                System.err.println(library.id() + " S4 " + workload + " failed: " + ex);
                                ex.printStackTrace(System.err);
                                report.add(ClusterResult.failed(library.id(), workload, topology.name(), "failed: " + ex));
                            }
                        }
                    }
                    progress(library.id() + " S4 renewal");
                    load.renewals(library, cluster).forEach(report::add);
                }
            }
            finally {
                nodes.forEach(NodeCounters::close);
            }
        }
    }

    /** With W2: what each library leaves in Redis per lock name once its locks are released. */
    private static void leftovers(List<LockLibrary> libraries, RunContext context, Report report) {
        Leftovers pass = new Leftovers();
        for (LockLibrary library : libraries) {
            progress(library.id() + " keys left after release");
            try {
                report.add(pass.run(library, context));
            }
            catch (RuntimeException ex) {
                System.err.println(library.id() + " keys-left pass failed: " + ex);
                ex.printStackTrace(System.err);
                report.add(LeftoverResult.failed(library.id(), Leftovers.NAMES, "failed: " + ex));
            }
        }
    }

    /** Unrecorded W2 runs, one per library, so that the JIT has seen every library before any is measured. */
    private static void warmUp(List<LockLibrary> libraries, Options options, RedisAdmin admin) {
        if (options.jvmWarmup().isZero()) {
            return;
        }
        RunContext unrecorded = new RunContext(options.withRunTimes(Duration.ZERO, options.jvmWarmup(), Duration.ZERO),
                admin);
        Workload w2 = Uncontended.w2(options.threads());
        for (LockLibrary library : libraries) {
            progress("warming up " + library.id());
            guarded(library, w2, unrecorded, false);
        }
    }

    private static Measurement guarded(LockLibrary library, Workload workload, RunContext context, boolean count) {
        try {
            return workload.run(library, context, count);
        }
        catch (RuntimeException ex) {
            System.err.println(library.id() + " " + workload.id() + " failed: " + ex);
            ex.printStackTrace(System.err);
            return Measurement.failed(library.id(), workload.id(), "failed: " + ex);
        }
    }

    private static void describeRun(Report report, Environment environment, Options options, RedisServer server) {
        report.header("Machine: " + environment.machine());
        report.header("JDK: " + environment.jdk());
        report.header("Redis: " + server.version() + " on 127.0.0.1:" + server.port()
                + " (same machine, no persistence), started by the harness");
        StringBuilder versions = new StringBuilder("Libraries: ");
        environment.libraries().forEach((name, version) -> versions.append(name).append(' ').append(version).append(", "));
        report.header(versions.substring(0, versions.length() - 2));
        report.header("Settings: after " + options.jvmWarmup().toMillis() + " ms of unrecorded W2 per library, "
                + options.rounds() + " interleaved runs per library and workload, each "
                + options.warmup().toMillis() + " ms warm-up + " + options.duration().toMillis()
                + " ms measured (ops/s: median run, with the slowest and fastest); MONITOR pass "
                + options.countDuration().toMillis() + " ms in the first run; W2 threads " + options.threads()
                + "; W3, W5, W6 " + options.clients() + " clients x " + options.clientThreads() + " threads");
        report.header("Redis calls/op: INFO commandstats delta over the measured window, every command Redis ran "
                + "including those inside Lua scripts. Client cmds/op: commands the clients sent (round trips), from "
                + "a separate MONITOR pass, since MONITOR slows Redis down");
    }

    private static List<LockLibrary> libraries(Options options, Environment environment) {
        List<LockLibrary> libraries = new ArrayList<>();
        for (String id : options.libraries()) {
            libraries.add(switch (id) {
                case "relock" -> new RelockLibrary(environment.pinned("relock"));
                case "redisson" -> new RedissonLibrary(environment.pinned("redisson"));
                case "si-spin" -> new SpringIntegrationLibrary(RedisLockType.SPIN_LOCK,
                        environment.pinned("spring-integration"));
                case "si-pubsub" -> new SpringIntegrationLibrary(RedisLockType.PUB_SUB_LOCK,
                        environment.pinned("spring-integration"));
                case "raw" -> new RawLibrary(Environment.mavenVersion("io.lettuce", "lettuce-core"));
                case "lean" -> new LeanLibrary(Environment.mavenVersion("io.lettuce", "lettuce-core"));
                default -> throw new IllegalArgumentException("unknown library " + id);
            });
            if (id.equals("relock") && options.candidate() != null) {
                libraries.add(new CandidateRelockLibrary(options.candidate()));
            }
        }
        return libraries;
    }

    private static List<Workload> workloads(Options options) {
        List<Workload> workloads = new ArrayList<>();
        for (String id : options.workloads()) {
            switch (id) {
                case "W1" -> workloads.add(Uncontended.w1());
                case "W2" -> workloads.add(Uncontended.w2(options.threads()));
                case "W3" -> workloads.add(Contended.w3(options.clients(), options.clientThreads()));
                case "W4" -> workloads.add(new Reentry());
                case "W5" -> workloads.add(new ReadMostly(options.clients(), options.clientThreads()));
                case "W6" -> workloads.add(Contended.w6(options.clients(), options.clientThreads()));
                default -> {
                    // watchdog, W7, scale and annotation have their own tables
                }
            }
        }
        return workloads;
    }

    private static final long STARTED = System.nanoTime();

    private static void progress(String what) {
        System.err.printf("[bench %5.1fs] %s%n", (System.nanoTime() - STARTED) / 1e9, what);
    }
}
