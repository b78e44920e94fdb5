package io.github.relock.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Command-line settings. Defaults keep a full run to a few minutes on a small machine; every figure in
 * the table is a ratio within one run, so short runs are fine as long as they are the same for all.
 *
 * @param duration         measured time of one run of one (library, workload)
 * @param warmup           unmeasured time before it, for the JIT and connection pools
 * @param jvmWarmup        before anything is measured, each library runs W2 this long, unrecorded, so
 *                         that whichever library happens to run first does not pay for the JIT
 * @param rounds           runs per (library, workload), interleaved with the other libraries' runs;
 *                         the table shows the median run, so one noisy moment cannot decide a ratio
 * @param countDuration    extra pass with MONITOR attached that splits client commands from the calls
 *                         scripts make inside Redis; zero skips it
 * @param threads          W2 threads on one client
 * @param clients          W3, W5 and W6 independent clients
 * @param clientThreads    W3, W5 and W6 threads per client
 * @param libraries        library ids, in table order
 * @param workloads        workload ids, in table order
 * @param watchdogLocks    locks held during the watchdog workload
 * @param watchdogDuration how long they are held while renewal traffic is counted
 * @param watchdogTimeout  the watchdog timeout given to every library in that workload
 * @param annotationDuration time for the annotation overhead comparison, warm-up not included
 * @param callers          W7 concurrent callers (on 100 keys)
 * @param s2Waiters        S2 asynchronous waiters, each taking its key once and holding it 50 ms
 * @param s2Keys           S2 keys the waiters are spread over (at most {@code s2Waiters})
 * @param s2Clients        S2 independent clients the waiters are spread over, so releases reach other clients
 * @param s2Hold           how long each S2 waiter keeps its key once it has it; 50 ms on 1,000 keys makes about
 *                         20,000 acquisitions/s, a load one Redis carries beside its other work
 * @param s1Locks          S1 locks held at once with no lease
 * @param s3Keys           S3 distinct keys locked once each
 * @param candidate        another build of lock-core (classes directory or jar) to run as library
 *                         {@code relock-candidate} beside relock, for A/B measurements of a change
 * @param out              also write the report here, and its charts beside it
 *
 * <p>Workload {@code scale} (not run by default) runs S1, S2, S3 and S4; {@code S2} alone runs only
 * S2, the many-waiters run (well under 2 minutes per library), e.g. {@code --libs=relock,redisson --workloads=S2};
 * {@code S4} alone runs only the Redis Cluster comparison, e.g. {@code --libs=relock,redisson --workloads=S4}.
 */
public record Options(Duration duration, Duration warmup, Duration jvmWarmup, int rounds, Duration countDuration, int threads, int clients,
        int clientThreads, List<String> libraries, List<String> workloads, int watchdogLocks, Duration watchdogDuration,
        Duration watchdogTimeout, Duration annotationDuration, int callers, int s2Waiters, int s2Keys, int s2Clients, Duration s2Hold, int s1Locks, int s3Keys, @Nullable Path candidate,
        @Nullable Path out) {

    public static final List<String> ALL_LIBRARIES = List.of("relock", "redisson", "si-spin", "si-pubsub", "raw",
            "lean");
    public static final List<String> ALL_WORKLOADS = List.of("W1", "W2", "W3", "W4", "W5", "W6", "W7", "watchdog",
            "threads", "annotation");
    /**
     * Also known, not run by default: {@code scale} (S1, S2, S3 and S4; about 8 minutes for two
     * libraries), {@code S2} (only the many-waiters part of it) and {@code S4} (only the Redis Cluster part, about
     * 1.5 minutes for relock and Redisson).
     */
    public static final List<String> KNOWN_WORKLOADS = List.of("W1", "W2", "W3", "W4", "W5", "W6", "W7", "watchdog",
            "threads", "annotation", "scale", "S2", "S4");

    /**
     * {@code --workloads=all}: the default workloads and the {@code scale} group in one run, so that one report
     * judges every target.
     */
    public static final String ALL = "all";

    public static Options defaults() {
        return new Options(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(3), 3, Duration.ofSeconds(1),
                16, 4, 4, ALL_LIBRARIES, ALL_WORKLOADS, 1000, Duration.ofSeconds(10), Duration.ofSeconds(3),
                Duration.ofSeconds(12), 10_000, 10_000, 1_000, 4, Duration.ofMillis(50), 100_000, 1_000_000, null, null);
    }

    /** Parses {@code --name=value} flags over the defaults; {@code --help} returns null. */
    public static @Nullable Options parse(String... args) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                return null;
            }
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("expected --name=value, got '" + arg + "'");
            }
            flags.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        Options d = defaults();
        Options options = new Options(
                duration(flags.remove("duration"), d.duration),
                duration(flags.remove("warmup"), d.warmup),
                duration(flags.remove("jvm-warmup"), d.jvmWarmup),
                positive("rounds", flags.remove("rounds"), d.rounds),
                duration(flags.remove("count-duration"), d.countDuration),
                positive("threads", flags.remove("threads"), d.threads),
                positive("clients", flags.remove("clients"), d.clients),
                positive("client-threads", flags.remove("client-threads"), d.clientThreads),
                list("libs", flags.remove("libs"), d.libraries, ALL_LIBRARIES),
                list("workloads", flags.remove("workloads"), d.workloads, KNOWN_WORKLOADS),
                positive("watchdog-locks", flags.remove("watchdog-locks"), d.watchdogLocks),
                duration(flags.remove("watchdog-duration"), d.watchdogDuration),
                duration(flags.remove("watchdog-timeout"), d.watchdogTimeout),
                duration(flags.remove("annotation-duration"), d.annotationDuration),
                positive("callers", flags.remove("callers"), d.callers),
                positive("s2-waiters", flags.remove("s2-waiters"), d.s2Waiters),
                positive("s2-keys", flags.remove("s2-keys"), d.s2Keys),
                positive("s2-clients", flags.remove("s2-clients"), d.s2Clients),
                duration(flags.remove("s2-hold"), d.s2Hold),
                positive("s1-locks", flags.remove("s1-locks"), d.s1Locks),
                positive("s3-keys", flags.remove("s3-keys"), d.s3Keys),
                flags.containsKey("candidate") ? Path.of(flags.remove("candidate")) : null,
                flags.containsKey("out") ? Path.of(flags.remove("out")) : null);
        if (!flags.isEmpty()) {
            throw new IllegalArgumentException("unknown flag(s): " + flags.keySet() + "\n" + usage());
        }
        if (options.s2Keys > options.s2Waiters) {
            throw new IllegalArgumentException("--s2-keys (" + options.s2Keys + ") must not exceed --s2-waiters ("
                    + options.s2Waiters + ")");
        }
        return options;
    }

    /** The same settings with other run times: for unrecorded warm-up runs. */
    public Options withRunTimes(Duration newWarmup, Duration newDuration, Duration newCountDuration) {
        return new Options(newDuration, newWarmup, jvmWarmup, rounds, newCountDuration, threads, clients, clientThreads,
                libraries, workloads, watchdogLocks, watchdogDuration, watchdogTimeout, annotationDuration, callers,
                s2Waiters, s2Keys, s2Clients, s2Hold, s1Locks, s3Keys, candidate, out);
    }

    public static String usage() {
        return """
                usage: java -jar lock-benchmarks.jar [--flag=value ...]
                  --duration=2s            measured time of one run of one library and workload
                  --warmup=1s              unmeasured warm-up before it
                  --jvm-warmup=3s          once per library before measuring, unrecorded (0 to skip)
                  --rounds=3               runs per library and workload, interleaved; the median is shown
                  --count-duration=1s      MONITOR pass that counts client commands, first round (0 to skip)
                  --threads=16             W2 threads on one client
                  --clients=4              W3, W5 and W6 independent clients ...
                  --client-threads=4       ... and threads per client, all on one key
                                           (W5: read-write lock, 90% reads; W6: fair lock; both
                                           run only relock and redisson, the others have neither)
                  --libs=relock,redisson,si-spin,si-pubsub,raw,lean
                                           (raw: relock's own scripts with nothing around them;
                                           lean: the leanest owner-checked reentrant scripts)
                  --workloads=W1,W2,W3,W4,W5,W6,W7,watchdog,threads,annotation
                                           (threads: the threads one client starts, by name)
                                           (all: these and scale, in one run and one report, so
                                           the targets table judges S1 and S2 as well)
                                           (W2 also counts the keys and bytes each library leaves
                                           in Redis per lock name after release)
                                           (also known, not run by default: scale, S1 100,000 held
                                           locks, S2 many waiters and S3 1,000,000 keys, about 6 min
                                           for two libraries; S2, only the many-waiters part)
                                           (S4, not run by default: W2 and W3 standalone and on a
                                           3-primary cluster, pub/sub bytes per release, renewal
                                           per slot; relock and redisson, about 1.5 min)
                  --watchdog-locks=1000    locks held in the watchdog workload
                  --watchdog-duration=10s  how long they are held while renewals are counted
                  --watchdog-timeout=3s    watchdog timeout, the same for every library
                  --annotation-duration=12s  time for the annotation comparison (plus up to 2 s warm-up)
                  --callers=10000          W7 concurrent callers, on 100 keys, each holding 1 ms
                  --s2-waiters=10000       S2 asynchronous waiters, each taking its key once for 50 ms ...
                  --s2-keys=1000           ... spread over this many keys ...
                  --s2-clients=4           ... and this many clients (libraries with an async API only)
                  --s2-hold=50ms           how long each S2 waiter keeps its key
                  --s1-locks=100000        S1 locks held at once with no lease (scale)
                  --s3-keys=1000000        S3 distinct keys locked once each (scale)
                  --candidate=PATH         also run lock-core from PATH (target/classes or jar) as
                                           relock-candidate, to measure a change against relock
                                           (W1-W6, W7 reactive, watchdog, threads, scale; the
                                           report then has a candidate/today table)
                  --out=FILE               also write the report to FILE, and beside it the charts
                                           NAME-ops.png and NAME-w3-wait.png (NAME: FILE without .md)
                durations: 500ms, 5s, 2m or ISO-8601 (PT5S)""";
    }

    static Duration duration(@Nullable String text, Duration fallback) {
        if (text == null) {
            return fallback;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt")) {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)) * 60);
            }
            if (t.equals("0")) {
                return Duration.ZERO;
            }
        }
        catch (RuntimeException ex) {
            // fall through to the message below
        }
        throw new IllegalArgumentException("not a duration: '" + text + "' (use 500ms, 5s, 2m or PT5S)");
    }

    private static int positive(String name, @Nullable String text, int fallback) {
        if (text == null) {
            return fallback;
        }
        int value = Integer.parseInt(text.trim());
        if (value < 1) {
            throw new IllegalArgumentException("--" + name + " must be at least 1, was " + value);
        }
        return value;
    }

    private static List<String> list(String name, @Nullable String text, List<String> fallback, List<String> known) {
        if (text == null) {
            return fallback;
        }
        List<String> chosen = new ArrayList<>();
        for (String raw : text.split(",")) {
            String item = raw.trim();
            if (item.isEmpty()) {
                continue;
            }
            if (name.equals("workloads") && item.equalsIgnoreCase(ALL)) {
                Stream.concat(ALL_WORKLOADS.stream(), Stream.of("scale")).filter(w -> !chosen.contains(w))
                        .forEach(chosen::add);
                continue;
            }
            String match = known.stream().filter(k -> k.equalsIgnoreCase(item)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--" + name + ": unknown '" + item + "', known: "
                            + String.join(",", known)));
            if (!chosen.contains(match)) {
                chosen.add(match);
            }
        }
        return List.copyOf(chosen);
    }
}
