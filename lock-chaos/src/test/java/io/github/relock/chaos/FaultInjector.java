package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.relock.test.ChildJvm;
import io.github.relock.test.RedisSentinelSetup;
import io.github.relock.test.RedisServer;

/**
 * Applies one phase of a {@link FaultSchedule}: a thread per lane takes its faults in order, each at its
 * planned time (or as soon as the previous one of its lane is over), applies it, undoes it, and records the
 * window as it really was. In Sentinel phases a watcher also records any failover nobody asked for.
 */
final class FaultInjector {

    private static final long WATCH_MILLIS = 250;

    private final Topology topology;
    private final List<ChildJvm> children;
    private final ChaosHistory history;
    private final AtomicBoolean sentinelBusy = new AtomicBoolean();
    private final AtomicLong plannedSwitches = new AtomicLong();

    FaultInjector(Topology topology, List<ChildJvm> children, ChaosHistory history) {
        this.topology = topology;
        this.children = children;
        this.history = history;
    }

    /** Runs the phase's faults; returns once its time is up and every fault has been undone. */
    void run(FaultSchedule.Phase phase, List<FaultSchedule.Planned> faults, long phaseStart)
            throws InterruptedException {
        long phaseEnd = phaseStart + Timing.nanos(phase.millis());
        Map<String, List<FaultSchedule.Planned>> lanes = new LinkedHashMap<>();
        faults.forEach(f -> lanes.computeIfAbsent(f.lane(), k -> new ArrayList<>()).add(f));
        List<Thread> threads = new ArrayList<>();
        for (Map.Entry<String, List<FaultSchedule.Planned>> lane : lanes.entrySet()) {
            threads.add(start("chaos-lane-" + lane.getKey(), () -> lane(lane.getValue(), phaseStart, phaseEnd)));
        }
        AtomicBoolean watching = new AtomicBoolean(phase.sentinel());
        Thread watcher = phase.sentinel() ? start("chaos-sentinel-watch", () -> watch(watching)) : null;
        LockSupport.parkNanos(Math.max(0, phaseEnd - System.nanoTime()));
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(90)); // a Sentinel failover and rejoin can take a while
        }
        watching.set(false);
        if (watcher != null) {
            watcher.join();
        }
    }

    private void lane(List<FaultSchedule.Planned> faults, long phaseStart, long phaseEnd) {
        for (FaultSchedule.Planned fault : faults) {
            long at = phaseStart + Timing.nanos(fault.atMillis());
            LockSupport.parkNanos(Math.max(0, at - System.nanoTime()));
            if (System.nanoTime() - phaseEnd >= 0) {
                return; // the lane ran late: what is left does not fit into the phase
            }
            long start = System.nanoTime();
            try {
                apply(fault);
            }
            catch (RuntimeException ex) {
                history.add(new Ev.Fault(fault.kind().name(), fault.lane(), start, System.nanoTime(),
                        Ev.token("failed:" + ex)));
            }
        }
    }

    private void apply(FaultSchedule.Planned fault) {
        String kind = fault.kind().name();
        long millis = fault.millis();
        switch (fault.kind()) {
            case REDIS_KILL -> window(kind, "redis", "down " + millis + " ms", () -> {
                topology.redis().kill();
                sleep(millis);
                topology.redis().restart();
            });
            case REDIS_PAUSE -> window(kind, "redis", "-", () -> {
                topology.redis().pause();
                sleep(millis);
                topology.redis().resume();
            });
            case CUT_ALL -> window(kind, "proxy", "-", () -> topology.proxy().cutAll());
            case DROP_REPLY -> {
                int before = topology.proxy().cuts();
                window(kind, "proxy", "L:k" + fault.target(), () -> {
                    topology.proxy().cutAfterReplyTo("L:k" + fault.target());
                    sleep(millis);
                    topology.proxy().disarm();
                });
                if (topology.proxy().cuts() == before) {
                    history.add(new Ev.Fault("DROP_REPLY_UNUSED", "proxy", 0, 0, "L:k" + fault.target()));
                }
            }
            case JVM_PAUSE -> window(kind, "jvm" + fault.target(), "-", () -> {
                ChildJvm child = children.get(fault.target() - 1);
                child.pause();
                sleep(millis);
                child.resume();
            });
            case LISTENER_RUNTIME, LISTENER_ASSERTION, LISTENER_ERROR -> {
                // the child records the window as it sees it
                children.get(fault.target() - 1).send("listener " + kind.substring("LISTENER_".length())
                        .toLowerCase(Locale.ROOT) + " " + millis);
                sleep(millis);
            }
            case POOL -> {
                children.get(fault.target() - 1).send("pool " + millis);
                sleep(millis);
            }
            case FAILOVER -> sentinel(() -> window(kind, "sentinel", "-", () -> topology.sentinel().failover()));
            case PRIMARY_KILL -> sentinel(() -> {
                RedisSentinelSetup setup = topology.sentinel();
                window(kind, "sentinel", "-", setup::killPrimaryAndAwaitFailover);
                window("REJOIN", "sentinel", "-", () -> setup.restartAsReplica(setup.replica()));
            });
            case REPLICA_PAUSE -> window(kind, "sentinel", "-", () -> {
                RedisServer replica = topology.sentinel().replica();
                replica.pause();
                sleep(millis);
                replica.resume();
            });
        }
    }

    /** Runs a fault and records its window; a fault that fails is recorded with its failure. */
    private void window(String kind, String target, String detail, Runnable fault) {
        long start = System.nanoTime();
        String outcome = detail;
        try {
            fault.run();
        }
        catch (RuntimeException ex) {
            outcome = "failed:" + ex.getMessage();
        }
        history.add(new Ev.Fault(kind, target, start, System.nanoTime(), Ev.token(outcome)));
    }

    /** A failover asked for: the watcher does not count the switch it makes. */
    private void sentinel(Runnable failover) {
        sentinelBusy.set(true);
        try {
            failover.run();
        }
        finally {
            plannedSwitches.incrementAndGet();
            sentinelBusy.set(false);
        }
    }

    /** Records a change of primary that no fault of the schedule made (Sentinel acting on its own). */
    private void watch(AtomicBoolean watching) {
        RedisSentinelSetup setup = topology.sentinel();
        int primary = port(setup);
        long seen = System.nanoTime();
        long switches = plannedSwitches.get();
        while (watching.get()) {
            sleep(WATCH_MILLIS);
            boolean planned = sentinelBusy.get() || plannedSwitches.get() != switches;
            int now = port(setup);
            long at = System.nanoTime();
            planned |= sentinelBusy.get() || plannedSwitches.get() != switches;
            switches = plannedSwitches.get();
            if (now != primary && now > 0 && !planned) {
                history.add(new Ev.Fault("UNPLANNED_FAILOVER", "sentinel", seen, at, "to:" + now));
            }
            if (now > 0) {
                primary = now;
            }
            seen = at;
        }
    }

    private static int port(RedisSentinelSetup setup) {
        try {
            return setup.primary().port();
        }
        catch (RuntimeException ex) {
            return -1; // no Sentinel answered this time
        }
    }

    private static Thread start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void sleep(long millis) {
        LockSupport.parkNanos(Timing.nanos(millis));
    }
}
