package io.github.relock.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The checkers' rules on small hand-made histories, one allowance at a time: each is granted exactly as
 * far as its bound reaches, and not beyond (no Redis, no JVMs: a plain unit test).
 */
class CheckerRulesTest {

    private static final long D = Timing.TOLD_WITHIN_MILLIS;
    /** Any label does: the checkers compare keys and never look inside them. */
    private static final String KEY = "key-0";

    private final ChaosHistory history = new ChaosHistory();

    @Test
    void twoOwnersInsideOneLockWithNoFaultAreAViolation() {
        watchdogHold("a", 1, 0, 10, 5_000);
        watchdogHold("b", 2, 3_000, 3_001, 3_500);
        assertThat(exclusion()).hasSize(1);
    }

    @Test
    void readersMayOverlapEachOtherButNotAWriter() {
        section("r1", 1, 0, 10, 5_000, LockTarget.SHARED_KIND);
        section("r2", 2, 1_000, 1_001, 2_000, LockTarget.SHARED_KIND);
        assertThat(exclusion()).as("two readers").isEmpty();
        watchdogHold("w", 3, 3_000, 3_001, 3_500);
        assertThat(exclusion()).as("a writer among readers").extracting(v -> v.involved().get(1)).containsExactly("w");
    }

    @Test
    void aFrozenHolderMayBeOverlappedUntilItIsToldWithinTheBound() {
        watchdogHold("a", 1, 0, 10, 5_000);
        fault("JVM_PAUSE", "jvm1", 1_000, 2_000);
        watchdogHold("b", 2, 2_100, 2_101, 2_000 + D);
        assertThat(exclusion()).isEmpty();
    }

    @Test
    void beyondTheBoundAFrozenHolderThatWasNeverToldIsAViolation() {
        watchdogHold("a", 1, 0, 10, 2_000 + D + 1_000);
        fault("JVM_PAUSE", "jvm1", 1_000, 2_000);
        watchdogHold("b", 2, 2_100, 2_101, 2_000 + D + 500);
        List<Violation> violations = exclusion();
        assertThat(violations).hasSize(1);
        assertThat(violations.get(0).from()).isEqualTo(ms(2_000 + D));
    }

    @Test
    void aHolderToldItLostTheLockClaimsItNoMore() {
        watchdogHold("a", 1, 0, 10, 5_000);
        history.add(new Ev.Told(1, "owner-a", KEY, 1, ms(2_000), "listener", "-"));
        watchdogHold("b", 2, 2_100, 2_101, 3_000);
        assertThat(exclusion()).isEmpty();
    }

    @Test
    void aFixedLeaseClaimsUntilItCanHaveEndedAndAPauseDoesNotShortenIt() {
        fixedHold("a", 1, 0, 10, 1_000, 5_000);
        fault("JVM_PAUSE", "jvm1", 100, 600);
        watchdogHold("b", 2, 900, 900, 950);  // inside the lease: not explained by the pause
        watchdogHold("c", 3, 1_100, 1_100, 1_200); // after the lease: no claim left to overlap
        assertThat(exclusion()).extracting(v -> v.involved().get(1)).containsExactly("b");
    }

    @Test
    void dataLossLetsAFixedLeaseGoUntoldToItsEnd() {
        fixedHold("a", 1, 0, 10, 3_000, 3_000);
        fault("REDIS_KILL", "redis", 500, 600);
        watchdogHold("b", 2, 700, 701, 2_900);
        assertThat(exclusion()).isEmpty();
    }

    @Test
    void dataLossLetsAWatchdogHoldGoUntoldOnlyUntilTheBound() {
        watchdogHold("w", 1, 0, 10, 600 + D + 1_000);
        fault("REDIS_KILL", "redis", 500, 600);
        watchdogHold("b", 2, 700, 701, 600 + D - 100);
        assertThat(exclusion()).isEmpty();
        watchdogHold("c", 3, 600 + D + 100, 600 + D + 100, 600 + D + 200);
        assertThat(exclusion()).extracting(v -> v.involved().get(1)).containsExactly("c");
    }

    @Test
    void tokensMustGrowAcrossHoldsInAcquisitionOrderOnly() {
        watchdogHold("a", 1, 0, 10, 20, 5);
        watchdogHold("b", 2, 30, 40, 50, 5);  // surely after a, same token
        watchdogHold("c", 3, 35, 60, 70, 4);  // surely after a, lower token
        watchdogHold("d", 1, 45, 80, 90, 6);  // raced with c (called before c returned): not compared with c
        assertThat(TokenChecker.check(holds())).extracting(v -> v.involved().get(1)).containsExactly("b", "c");
    }

    @Test
    void aCallMayOverrunItsWaitByTheBoundNotCountingItsJvmsPause() {
        long bound = 100 + Timing.OVERRUN_MILLIS;
        history.add(new Ev.Op(1, "o1", "TRY_LOCK_WAIT", KEY, ms(0), ms(bound + 10), 100, "not-acquired", "-"));
        history.add(new Ev.Op(2, "o2", "TRY_LOCK_WAIT", KEY, ms(0), ms(bound + 10), 100, "not-acquired", "-"));
        fault("JVM_PAUSE", "jvm2", 50, 100);
        assertThat(StallChecker.check(history, holds(), new Exposures(history)))
                .extracting(v -> v.involved().get(0)).containsExactly("o1");
    }

    @Test
    void aNestedCallThatWaitsOnItselfIsAViolationUnlessReplicasCouldNotAcknowledge() {
        fixedHold("a", 1, 0, 0, 800, 1_000);
        history.add(new Ev.Op(1, "o1", "ANN_LEASED", KEY, ms(10), ms(420), 400, "not-acquired", "a"));
        assertThat(StallChecker.check(history, holds(), new Exposures(history)))
                .extracting(Violation::rule).containsExactly("waited on itself");
        fault("REJOIN", "sentinel", 5_000, 6_000);
        assertThat(StallChecker.check(history, holds(), new Exposures(history))).as("a window far off")
                .extracting(Violation::rule).containsExactly("waited on itself");
        fault("REPLICA_PAUSE", "sentinel", -500, 5);
        assertThat(StallChecker.check(history, holds(), new Exposures(history))).isEmpty();
    }

    private List<Violation> exclusion() {
        return ExclusionChecker.check(holds(), new Exposures(history)).violations();
    }

    private Holds holds() {
        return new Holds(history, new Exposures(history));
    }

    private void watchdogHold(String id, int jvm, long invoke, long enter, long exit) {
        watchdogHold(id, jvm, invoke, enter, exit, 1);
    }

    private void watchdogHold(String id, int jvm, long invoke, long enter, long exit, long token) {
        history.add(new Ev.Section(jvm, "client-" + id, "owner-" + id, KEY, token, 0, ms(invoke), ms(enter), ms(exit),
                1, "prog", id, "ok", "op-" + id));
    }

    private void section(String id, int jvm, long invoke, long enter, long exit, String kind) {
        history.add(new Ev.Section(jvm, "client-" + id, "owner-" + id, KEY, 1, 0, ms(invoke), ms(enter), ms(exit), 1,
                kind, id, "ok", "op-" + id));
    }

    private void fixedHold(String id, int jvm, long invoke, long enter, long lease, long exit) {
        history.add(new Ev.Section(jvm, "client-" + id, "owner-" + id, KEY, 1, lease, ms(invoke), ms(enter), ms(exit),
                1, "prog", id, "ok", "op-" + id));
    }

    private void fault(String kind, String target, long from, long to) {
        history.add(new Ev.Fault(kind, target, ms(from), ms(to), "-"));
    }

    private static long ms(long millis) {
        return Timing.nanos(millis);
    }
}
