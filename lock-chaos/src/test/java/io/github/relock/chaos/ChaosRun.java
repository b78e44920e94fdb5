package io.github.relock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.relock.core.reliability.ChildEvents;
import io.github.relock.test.ChildJvm;

/**
 * One run from start to end: the Redis topology, the client JVMs, the fault schedule phase by phase, a
 * clean stop, the probes after every close, and finally the checks over the merged history. Every
 * process it starts is stopped before it returns, also when it fails (and by the fixtures' process
 * registry if this JVM dies).
 */
final class ChaosRun {

    private static final Duration START = Duration.ofSeconds(120);
    private static final Duration STOP = Duration.ofSeconds(90);

    private ChaosRun() {
    }

    static RunResult run(RunPlan plan) throws Exception {
        FaultSchedule schedule = FaultSchedule.generate(plan.seed(), plan.scheduleMillis(), plan.sentinel(),
                plan.children(), plan.locks());
        System.out.printf("%n=== %s: seed %d (replay with -Drelock.seed=%d), %d s of schedule%n%s", plan.label(),
                plan.seed(), plan.seed(), plan.scheduleMillis() / 1000, schedule.describe());
        ChaosHistory history = new ChaosHistory();
        long wallStart = System.nanoTime();
        try (Topology topology = new Topology(plan.sentinel());
                CloseProbes probes = new CloseProbes(topology, history)) {
            List<ChildJvm> children = new ArrayList<>();
            List<ChildEvents> events = new ArrayList<>();
            try {
                String first = topology.enter(schedule.phases().get(0));
                for (int jvm = 1; jvm <= plan.children(); jvm++) {
                    ChildJvm child = ChildJvm.start(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                            ChaosChild.class, args(plan, jvm, first));
                    children.add(child);
                    events.add(new ChildEvents(child, Ev.PREFIX, history::line));
                }
                events.forEach(e -> e.await("READY", START));
                System.out.printf("%d client JVMs ready after %d ms%n", plan.children(), millisSince(wallStart));
                long baseline = System.nanoTime();
                probes.probeChannels("start", baseline); // the baseline: nothing subscribed before the clients start
                children.forEach(c -> c.send("go"));
                history.start(System.nanoTime());
                FaultInjector injector = new FaultInjector(topology, children, history);
                for (FaultSchedule.Phase phase : schedule.phases()) {
                    if (phase.index() > 0) {
                        // every JVM stops on the old topology before any starts on the new one: two clients on two
                        // different Redis deployments would each be granted the same lock
                        long switching = System.nanoTime();
                        children.forEach(c -> c.send("quiesce"));
                        events.forEach(e -> e.await("QUIESCED", START));
                        String topologyArg = topology.enter(phase);
                        children.forEach(c -> c.send("phase " + topologyArg));
                        events.forEach(e -> e.await("PHASE-READY", START));
                        System.out.printf("clients switched to phase %d in %d ms%n", phase.index(),
                                millisSince(switching));
                    }
                    long phaseStart = System.nanoTime();
                    System.out.printf("phase %d (%s) starts at %s%n", phase.index(), phase.topology(),
                            history.at(phaseStart));
                    injector.run(phase, schedule.faults(phase.index()), phaseStart);
                    history.add(new Ev.Fault("PHASE_" + (phase.sentinel() ? "SENTINEL" : "STANDALONE"), "all",
                            phaseStart, System.nanoTime(), "phase" + phase.index()));
                }
                long stopping = System.nanoTime();
                children.forEach(c -> c.send("stop"));
                events.forEach(e -> e.await("STOPPED", STOP));
                long stopped = System.nanoTime();
                probes.awaitPending();
                probes.probeChannels("end", System.nanoTime());
                System.out.printf("stopped in %d ms, close probes done %d ms later%n", (stopped - stopping) / 1_000_000,
                        millisSince(stopped));
                children.forEach(c -> c.send("exit"));
                children.forEach(c -> c.awaitExit(Duration.ofSeconds(30)));
            }
            finally {
                events.forEach(ChildEvents::close);
                children.forEach(ChildJvm::close);
                history.dump(plan.label(), plan.seed()); // also when the run failed: it is what there is to read
            }
        }
        long checking = System.nanoTime();
        RunResult result = Checks.run(plan, schedule, history, millisSince(wallStart));
        System.out.printf("%s: history checked in %d ms%n", plan.label(), millisSince(checking));
        return result;
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static String[] args(RunPlan plan, int jvm, String topology) {
        List<String> args = new ArrayList<>(List.of("jvm=" + jvm, "seed=" + plan.seed(), "threads=" + plan.threads(),
                "annotated=" + plan.annotatedThreads(), "locks=" + plan.locks(), "topology=" + topology,
                "brokenClose=" + plan.brokenClose()));
        if (plan.broken() != null) {
            args.add("broken=" + plan.broken());
        }
        return args.toArray(String[]::new);
    }
}
