package io.github.relock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import io.github.relock.core.reliability.BrokenScripts;
import io.github.relock.core.reliability.Soak;

/**
 * A seeded random fault schedule against three client JVMs, each with a programmatic client and an
 * annotated Spring Boot context on four shared locks; the history is checked for mutual exclusion, fencing
 * order, close() and stalls ({@link Checks}). Two minutes of schedule by default, {@code -Drelock.soak=30m}
 * for longer, {@code -Drelock.seed=N} to replay. Then the same checker runs against three deliberately
 * broken locks (8 s runs, side by side) and must fail each time: a checker that never fires proves nothing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(600)
class RandomFaultScheduleIT {

    static final long SEED = Seeds.chosen();
    static final long SCHEDULE_MILLIS = Soak.enabled() ? Soak.duration().toMillis() : 120_000;
    static final long CONTROL_MILLIS = 8_000;
    static final List<RunResult> results = Collections.synchronizedList(new ArrayList<>());
    static final Map<String, CompletableFuture<RunResult>> controls = new LinkedHashMap<>();

    static {
        System.out.printf("RandomFaultScheduleIT: seed %d (replay with -Drelock.seed=%d), %d s of schedule%n", SEED,
                SEED, SCHEDULE_MILLIS / 1000);
    }

    @AfterAll
    static void report() {
        if (!results.isEmpty()) {
            System.out.println(ScheduleReport.write(results));
        }
    }

    @Test
    @Order(1)
    void theRealLockKeepsItsPromisesUnderARandomFaultSchedule() throws Exception {
        RunResult result = run(RunPlan.real(SEED, SCHEDULE_MILLIS));
        assertThat(result.violations()).as(() -> "seed " + SEED + " (replay with -Drelock.seed=" + SEED + "): "
                + result.violations().size() + " violations; the first ones:\n"
                + String.join("\n\n", result.minimalHistories()) + "\n\n" + result.schedule().describe()).isEmpty();
    }

    @Test
    @Order(2)
    void controlAnAcquireWithoutOwnerCheckBreaksMutualExclusion() throws Exception {
        assertCaught("control: acquire without owner check", "mutual exclusion");
    }

    @Test
    @Order(3)
    void controlAConstantFencingTokenBreaksTokenOrder() throws Exception {
        assertCaught("control: constant fencing token", "fencing token");
    }

    @Test
    @Order(4)
    void controlACloseThatLeaksItsWatchdogIsCaught() throws Exception {
        assertCaught("control: close() leaks watchdog and subscription", "close:");
    }

    /** A control's run must report violations of {@code rule}. */
    private static void assertCaught(String label, String rule) throws Exception {
        RunResult result = controls().get(label).get();
        assertThat(result.violations(rule)).as(label + ": violations of '" + rule + "' caught").isPositive();
    }

    /**
     * The three controls, started together once the real run is over: three short runs side by side
     * (each its own Redis and client JVMs), which keeps the default run within its time budget.
     */
    private static synchronized Map<String, CompletableFuture<RunResult>> controls() {
        if (controls.isEmpty()) {
            List<RunPlan> plans = List.of(
                    // the exclusive and fair locks' acquire without its owner check, and a writer that passes readers
                    control("control: acquire without owner check", BrokenScripts.ACQUIRE_NO_OWNER_CHECK + "+"
                            + BrokenScripts.RW_WRITE_IGNORES_READERS, false),
                    control("control: constant fencing token", BrokenScripts.ACQUIRE_CONSTANT_TOKEN, false),
                    control("control: close() leaks watchdog and subscription", null, true));
            ExecutorService pool = Executors.newFixedThreadPool(plans.size());
            for (RunPlan plan : plans) {
                controls.put(plan.label(), CompletableFuture.supplyAsync(() -> {
                    try {
                        return run(plan);
                    }
                    catch (Exception ex) {
                        throw new CompletionException(ex);
                    }
                }, pool));
            }
            pool.shutdown();
        }
        return controls;
    }

    private static RunPlan control(String label, String broken, boolean brokenClose) {
        return RunPlan.control(label, Seeds.derive(SEED, label), CONTROL_MILLIS, broken, brokenClose);
    }

    /** The lock kind a Redis key belongs to, for the report (see {@link LockTarget}). */
    private static String kindOf(String key) {
        return key.endsWith(":rw") ? "read-write" : key.endsWith(":fair") ? "fair" : key.contains("{L:") ? "exclusive"
                : "no one lock";
    }

        private static RunResult run(RunPlan plan) throws Exception {
        RunResult result = ChaosRun.run(plan);
        results.add(result);
        Map<String, Long> byKind = new TreeMap<>();
        result.violations().forEach(v -> byKind.merge(v.rule() + " on " + kindOf(v.key()), 1L, Long::sum));
        System.out.printf("%s: %d violations %s%n%s%n", plan.label(), result.violations().size(), byKind,
                String.join("\n\n", result.minimalHistories()));
        return result;
    }
}
