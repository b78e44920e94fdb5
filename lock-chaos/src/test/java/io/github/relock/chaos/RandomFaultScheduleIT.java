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
                + String.join("\n\n", result.minimalHistories())).isEmpty();
    }

    @Test
    @Order(2)
    void controlAnAcquireWithoutOwnerCheckBreaksMutualExclusion() throws Exception {
        RunResult result = run(RunPlan.control("control: acquire without owner check", Seeds.derive(SEED, "owner"),
                CONTROL_MILLIS, BrokenScripts.ACQUIRE_NO_OWNER_CHECK, false));
        assertThat(result.violations("mutual exclusion")).as("mutual-exclusion violations caught").isPositive();
    }

    @Test
    @Order(3)
    void controlAConstantFencingTokenBreaksTokenOrder() throws Exception {
        RunResult result = run(RunPlan.control("control: constant fencing token", Seeds.derive(SEED, "token"),
                CONTROL_MILLIS, BrokenScripts.ACQUIRE_CONSTANT_TOKEN, false));
        assertThat(result.violations("fencing token")).as("token-order violations caught").isPositive();
    }

    @Test
    @Order(4)
    void controlACloseThatLeaksItsWatchdogIsCaught() throws Exception {
        RunResult result = run(RunPlan.control("control: close() leaks watchdog and subscription",
                Seeds.derive(SEED, "close"), CONTROL_MILLIS, null, true));
        assertThat(result.violations("close:")).as("close violations caught").isPositive();
    }

    private static RunResult run(RunPlan plan) throws Exception {
        RunResult result = ChaosRun.run(plan);
        results.add(result);
        System.out.printf("%s: %d violations%n%s%n", plan.label(), result.violations().size(),
                String.join("\n\n", result.minimalHistories()));
        return result;
    }
}
