package io.github.relock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

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
 * broken locks and must fail each time: a checker that never fires proves nothing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(600)
class RandomFaultScheduleIT {

    static final long SEED = Seeds.chosen();
    static final long SCHEDULE_MILLIS = Soak.enabled() ? Soak.duration().toMillis() : 120_000;
    static final long CONTROL_MILLIS = 8_000;
    static final List<RunResult> results = Collections.synchronizedList(new ArrayList<>());

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
        control("control: acquire without owner check", BrokenScripts.ACQUIRE_NO_OWNER_CHECK, false,
                "mutual exclusion");
    }

    @Test
    @Order(3)
    void controlAConstantFencingTokenBreaksTokenOrder() throws Exception {
        control("control: constant fencing token", BrokenScripts.ACQUIRE_CONSTANT_TOKEN, false, "fencing token");
    }

    @Test
    @Order(4)
    void controlACloseThatLeaksItsWatchdogIsCaught() throws Exception {
        control("control: close() leaks watchdog and subscription", null, true, "close:");
    }

    /** A short run against a broken lock: the checker must report violations of {@code rule}. */
    private static void control(String label, String broken, boolean brokenClose, String rule) throws Exception {
        RunResult result = run(RunPlan.control(label, Seeds.derive(SEED, label), CONTROL_MILLIS, broken,
                brokenClose));
        assertThat(result.violations(rule)).as(label + ": violations of '" + rule + "' caught").isPositive();
    }

    private static RunResult run(RunPlan plan) throws Exception {
        RunResult result = ChaosRun.run(plan);
        results.add(result);
        System.out.printf("%s: %d violations%n%s%n", plan.label(), result.violations().size(),
                String.join("\n\n", result.minimalHistories()));
        return result;
    }
}
