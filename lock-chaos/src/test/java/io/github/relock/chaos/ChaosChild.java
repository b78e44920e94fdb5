package io.github.relock.chaos;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.relock.core.reliability.BrokenScripts;
import io.github.relock.core.reliability.ReliabilityChild;

/**
 * A client JVM of the fault schedule: a programmatic client and a Spring Boot context with annotated
 * methods, driven by seeded threads, printing its history on stdout ({@link Ev}). Arguments are
 * {@code key=value}: {@code jvm}, {@code seed}, {@code threads} (programmatic), {@code annotated},
 * {@code locks}, {@code topology} (see {@link ClientSlot#connect}), optionally {@code broken} (a
 * {@link BrokenScripts} breakage) and {@code brokenClose=true}.
 *
 * <p>Commands on stdin: {@code go}, {@code listener <mode> <ms>}, {@code pool <ms>}, {@code quiesce} then
 * {@code phase <topology>}, {@code stop}, {@code exit}. Answers {@code READY}, {@code QUIESCED},
 * {@code PHASE-READY} and {@code STOPPED}.
 */
public final class ChaosChild {

    private ChaosChild() {
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = ReliabilityChild.arguments(argv); // applies a "broken" breakage, if any
        int jvm = Integer.parseInt(args.get("jvm"));
        long seed = Long.parseLong(args.get("seed"));
        int locks = Integer.parseInt(args.get("locks"));
        ClientSlot slot = new ClientSlot(jvm, locks, Boolean.parseBoolean(args.get("brokenClose")));
        slot.connect(args.get("topology"));
        ExecutorService hopper = Executors.newFixedThreadPool(2, task -> {
            Thread thread = new Thread(task, "chaos-hop-" + jvm);
            thread.setDaemon(true);
            return thread;
        });
        List<Thread> drivers = new ArrayList<>();
        for (int i = 0; i < Integer.parseInt(args.get("threads")); i++) {
            Random random = new Random(Seeds.derive(seed, "jvm" + jvm + "-p" + i));
            ProgrammaticDriver driver = new ProgrammaticDriver(jvm, random, slot, locks, hopper);
            drivers.add(new Thread(driver, "chaos-p" + jvm + "-" + i));
        }
        for (int i = 0; i < Integer.parseInt(args.get("annotated")); i++) {
            Random random = new Random(Seeds.derive(seed, "jvm" + jvm + "-a" + i));
            drivers.add(new Thread(new AnnotatedDriver(jvm, random, slot, locks), "chaos-a" + jvm + "-" + i));
        }
        Out.say("READY " + jvm);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] command = line.trim().split(" ");
            switch (command[0]) {
                case "go" -> drivers.forEach(Thread::start);
                case "listener" -> fault(jvm, "LISTENER_" + command[1].toUpperCase(java.util.Locale.ROOT),
                        Long.parseLong(command[2]), () -> ChildFaults.listenerThrows(command[1],
                                Long.parseLong(command[2])));
                case "pool" -> fault(jvm, "POOL", Long.parseLong(command[1]),
                        () -> ChildFaults.poolExhausted(Long.parseLong(command[1])));
                case "quiesce" -> {
                    slot.quiesce();
                    Out.say("QUIESCED " + jvm);
                }
                case "phase" -> {
                    slot.switchTo(command[1]);
                    Out.say("PHASE-READY " + jvm);
                }
                case "stop" -> {
                    slot.stop(drivers);
                    Out.say("STOPPED " + jvm);
                }
                case "exit" -> System.exit(0);
                default -> Out.say("UNKNOWN " + line);
            }
        }
        System.exit(0);
    }

    /** Switches a fault on and records its window as this JVM sees it. */
    private static void fault(int jvm, String kind, long millis, Runnable on) {
        long start = System.nanoTime();
        on.run();
        Out.emit(new Ev.Fault(kind, "jvm" + jvm, start, start + Timing.nanos(millis), "-"));
    }
}
