package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The fault windows in which the README lets a holder lose its lock without being told at once, sorted
 * by what they allow (see {@link ExclusionChecker}):
 * <ul>
 * <li>data loss: Redis restarted empty, a failover nobody planned (Sentinel back to an empty node), and
 * {@code forceUnlock()} of that lock: every hold of that moment is gone;</li>
 * <li>cut off: the holder's JVM frozen, or (standalone only) Redis frozen: a watchdog lease can run out
 * before the watchdog reaches Redis again.</li>
 * </ul>
 * Not in the list, on purpose: proxy cuts and dropped replies (Lettuce reconnects within 100 ms and
 * re-sends), pool faults (a few hundred ms: one renewal round at most), throwing listeners, and in the
 * Sentinel phases failovers and a frozen replica, because with {@code minReplicas(1)} the README promises
 * that the holder is told when the lease the replica acknowledged ends.
 */
final class Exposures {

    /** A window and what it is. */
    record Window(String cause, long from, long to) {
    }

    private final List<Ev.Fault> faults;
    private final List<Ev.Force> forces;

    Exposures(ChaosHistory history) {
        this.faults = history.all(Ev.Fault.class);
        this.forces = history.all(Ev.Force.class);
    }

    /** Windows in which every hold of {@code key} may vanish from Redis. */
    List<Window> dataLoss(String key) {
        List<Window> windows = new ArrayList<>();
        for (Ev.Fault fault : faults) {
            if (fault.kind().equals("REDIS_KILL") || fault.kind().equals("UNPLANNED_FAILOVER")) {
                windows.add(new Window(fault.kind(), fault.start(), fault.end()));
            }
        }
        for (Ev.Force force : forces) {
            if (force.key().equals(key)) {
                windows.add(new Window("FORCE_UNLOCK", force.invoke(), force.ret()));
            }
        }
        return windows;
    }

    /** Windows in which the watchdog of JVM {@code jvm} cannot renew. */
    List<Window> cutOff(int jvm) {
        List<Window> windows = new ArrayList<>();
        for (Ev.Fault fault : faults) {
            if (fault.kind().equals("REDIS_PAUSE") || fault.kind().equals("JVM_PAUSE")
                    && fault.target().equals("jvm" + jvm)) {
                windows.add(new Window(fault.kind(), fault.start(), fault.end()));
            }
        }
        return windows;
    }

    /**
     * Windows in which replicas may acknowledge nothing (a failover, a primary killed or rejoining, a frozen
     * replica): with {@code minReplicas(1)} an acquisition, and a re-entry that lengthens its lease, then
     * count as not taken (the README: fail closed), also for a nested call whose own thread holds the lock.
     */
    List<Window> unacknowledged() {
        List<Window> windows = new ArrayList<>();
        for (Ev.Fault fault : faults) {
            if (Set.of("FAILOVER", "PRIMARY_KILL", "REJOIN", "REPLICA_PAUSE").contains(fault.kind())) {
                windows.add(new Window(fault.kind(), fault.start(), fault.end()));
            }
        }
        return windows;
    }

    /** How long JVM {@code jvm} was frozen between two instants. */
    long pausedNanos(int jvm, long from, long to) {
        long paused = 0;
        for (Ev.Fault fault : faults) {
            if (fault.kind().equals("JVM_PAUSE") && fault.target().equals("jvm" + jvm)) {
                paused += Math.max(0, Math.min(to, fault.end()) - Math.max(from, fault.start()));
            }
        }
        return paused;
    }

    /** The faults that touched the given JVMs (or everyone) between two instants, in order. */
    List<Ev.Fault> around(long from, long to, Set<Integer> jvms) {
        return faults.stream()
                .filter(f -> f.end() >= from && f.start() <= to && !f.kind().startsWith("PHASE"))
                .filter(f -> !f.target().startsWith("jvm") || jvms.contains(Integer.parseInt(f.target().substring(3))))
                .sorted(java.util.Comparator.comparingLong(Ev.Fault::start))
                .toList();
    }
}
