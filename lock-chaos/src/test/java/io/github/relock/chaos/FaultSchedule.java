package io.github.relock.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The faults of a run, generated up front from its seed: the run is cut into phases (standalone Redis
 * behind the chaos proxy, then a Sentinel setup with {@code minReplicas(1)}, in cycles), and in each phase
 * every lane (a fault target: Redis, the proxy, Sentinel, each client JVM's process, listener and pool)
 * gets its own Poisson stream of faults. Lanes run side by side, so faults of different lanes overlap;
 * within a lane they follow one another. One {@link Random} per phase and lane, derived from the seed.
 */
final class FaultSchedule {

    /** Cycle of phases: this long on standalone Redis, then this long on Sentinel. */
    static final long STANDALONE_MILLIS = 80_000;
    static final long SENTINEL_MILLIS = 40_000;

    enum Kind {
        REDIS_KILL, REDIS_PAUSE, CUT_ALL, DROP_REPLY, JVM_PAUSE, LISTENER_RUNTIME, LISTENER_ASSERTION,
        LISTENER_ERROR, POOL, FAILOVER, PRIMARY_KILL, REPLICA_PAUSE
    }

    /** A phase of the run, {@code millis} long. */
    record Phase(int index, boolean sentinel, long millis) {

        String topology() {
            return sentinel ? "Sentinel, minReplicas(1)" : "standalone behind the chaos proxy";
        }
    }

    /** A planned fault: {@code atMillis} into its phase, {@code millis} long; {@code target} a JVM or a lock. */
    record Planned(int phase, String lane, Kind kind, long atMillis, long millis, int target) {

        String describe() {
            String on = switch (kind) {
                case JVM_PAUSE, LISTENER_RUNTIME, LISTENER_ASSERTION, LISTENER_ERROR, POOL -> " jvm" + target;
                case DROP_REPLY -> " next reply about L:k" + target;
                default -> "";
            };
            return String.format(Locale.ROOT, "  phase %d +%7.3fs  %-18s %6d ms%s", phase, atMillis / 1000.0, kind,
                    millis, on);
        }
    }

    /** A kind of fault in a lane: how often (per minute) and how long. */
    private record Rate(Kind kind, double perMinute, int minMillis, int maxMillis) {
    }

    private static final List<Rate> REDIS = List.of(new Rate(Kind.REDIS_KILL, 2, 0, 1_000),
            new Rate(Kind.REDIS_PAUSE, 4, 200, 3_000));
    private static final List<Rate> PROXY = List.of(new Rate(Kind.CUT_ALL, 3, 0, 0),
            new Rate(Kind.DROP_REPLY, 6, 1_000, 1_000));
    private static final List<Rate> SENTINEL = List.of(new Rate(Kind.FAILOVER, 2, 0, 0),
            new Rate(Kind.PRIMARY_KILL, 1, 0, 0), new Rate(Kind.REPLICA_PAUSE, 2, 200, 1_000));
    private static final List<Rate> JVM = List.of(new Rate(Kind.JVM_PAUSE, 2, 300, 4_000));
    private static final List<Rate> LISTENER = List.of(new Rate(Kind.LISTENER_RUNTIME, 1.5, 2_000, 8_000),
            new Rate(Kind.LISTENER_ASSERTION, 1.5, 2_000, 8_000), new Rate(Kind.LISTENER_ERROR, 1.5, 2_000, 8_000));
    /** A few hundred ms: at most one renewal round falls into one, so a lease never runs out for it alone. */
    private static final List<Rate> POOL = List.of(new Rate(Kind.POOL, 4, 100, 450));

    private final long seed;
    private final List<Phase> phases;
    private final List<Planned> faults;

    private FaultSchedule(long seed, List<Phase> phases, List<Planned> faults) {
        this.seed = seed;
        this.phases = phases;
        this.faults = faults;
    }

    static FaultSchedule generate(long seed, long totalMillis, boolean withSentinel, int children, int locks) {
        List<Phase> phases = phases(totalMillis, withSentinel);
        List<Planned> faults = new ArrayList<>();
        for (Phase phase : phases) {
            if (phase.sentinel()) {
                lane(seed, phase, "sentinel", SENTINEL, -1, faults);
            }
            else {
                lane(seed, phase, "redis", REDIS, -1, faults);
                lane(seed, phase, "proxy", PROXY, locks, faults);
            }
            for (int child = 1; child <= children; child++) {
                lane(seed, phase, "jvm" + child, JVM, child, faults);
                lane(seed, phase, "listener" + child, LISTENER, child, faults);
                lane(seed, phase, "pool" + child, POOL, child, faults);
            }
        }
        faults.sort(Comparator.comparingInt(Planned::phase).thenComparingLong(Planned::atMillis));
        return new FaultSchedule(seed, phases, List.copyOf(faults));
    }

    private static List<Phase> phases(long totalMillis, boolean withSentinel) {
        List<Phase> phases = new ArrayList<>();
        long left = totalMillis;
        while (left > 0) {
            long standalone = withSentinel ? Math.min(STANDALONE_MILLIS, left) : left;
            phases.add(new Phase(phases.size(), false, standalone));
            left -= standalone;
            if (left > 0) {
                long sentinel = Math.min(SENTINEL_MILLIS, left);
                phases.add(new Phase(phases.size(), true, sentinel));
                left -= sentinel;
            }
        }
        return List.copyOf(phases);
    }

    /** One lane's faults in one phase; {@code target}: the JVM, or for the proxy the number of locks to pick from. */
    private static void lane(long seed, Phase phase, String lane, List<Rate> rates, int target, List<Planned> out) {
        Random random = new Random(Seeds.derive(seed, "schedule-" + phase.index() + "-" + lane));
        double perMinute = rates.stream().mapToDouble(Rate::perMinute).sum();
        double meanGap = 60_000 / perMinute;
        long at = gap(random, meanGap);
        while (at < phase.millis()) {
            Rate rate = pick(random, rates, perMinute);
            long millis = rate.minMillis() + random.nextInt(rate.maxMillis() - rate.minMillis() + 1);
            int on = rate.kind() == Kind.DROP_REPLY ? random.nextInt(target) : target;
            out.add(new Planned(phase.index(), lane, rate.kind(), at, millis, on));
            at += millis + gap(random, meanGap);
        }
    }

    private static Rate pick(Random random, List<Rate> rates, double total) {
        double roll = random.nextDouble() * total;
        for (Rate rate : rates) {
            roll -= rate.perMinute();
            if (roll < 0) {
                return rate;
            }
        }
        return rates.get(rates.size() - 1);
    }

    private static long gap(Random random, double mean) {
        return (long) (-mean * Math.log(1 - random.nextDouble()));
    }

    long seed() {
        return seed;
    }

    List<Phase> phases() {
        return phases;
    }

    List<Planned> faults(int phase) {
        return faults.stream().filter(f -> f.phase() == phase).toList();
    }

    Map<Kind, Long> counts() {
        Map<Kind, Long> counts = new EnumMap<>(Kind.class);
        faults.forEach(f -> counts.merge(f.kind(), 1L, Long::sum));
        return counts;
    }

    /** The schedule as printed before the run starts. */
    String describe() {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "fault schedule of seed %d: %d faults%n",
                seed, faults.size()));
        for (Phase phase : phases) {
            text.append(String.format(Locale.ROOT, "phase %d: %s, %d s%n", phase.index(), phase.topology(),
                    phase.millis() / 1000));
        }
        faults.forEach(f -> text.append(f.describe()).append('\n'));
        return text.toString();
    }
}
