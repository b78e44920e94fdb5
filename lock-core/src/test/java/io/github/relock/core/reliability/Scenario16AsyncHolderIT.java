package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 16: the asynchronous holder ({@code tryLockAsync} and {@code unlockAsync} for explicit owners, which
 * the starter's Mono and Flux support is a thin layer over) under three faults, each with a broken lock that the
 * same checker must catch: its connections cut ({@link AsyncConnectionCut}), its JVM killed
 * ({@link AsyncHolderKill}), Redis restarted empty ({@link AsyncRedisRestart}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
class Scenario16AsyncHolderIT {

    /** The connection-cut phase runs for the soak time with {@code -Drelock.soak}. */
    static final Duration CUT_RUN = Soak.enabled() ? Soak.duration() : Duration.ofSeconds(8);
    static final int KILLED_JVMS = 2;
    static final int RESTARTS = 4;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final Phases phases = new Phases("cut", "kill", "restart");
    private final Phases controls = new Phases("cut", "kill", "restart");
    private final ScenarioRunner<Phases, Phases> scenario = ScenarioRunner.inPhases("16",
            "async holder: connections cut, JVM killed, Redis restarted empty", phases);

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, control) -> new ReliabilityReport.Figures(
                "cut: " + CUT_RUN.toSeconds() + " s, " + AsyncConnectionCut.CLIENTS + " clients x "
                        + AsyncConnectionCut.CALLERS + " async callers on " + AsyncConnectionCut.KEYS + " keys (depth "
                        + "1-2, watchdog or fixed lease); kill: " + KILLED_JVMS * AsyncHolderKill.LOCKS + " async holds in "
                        + KILLED_JVMS + " JVMs (" + AsyncHolderKill.LEASE_MILLIS + " ms lease), 2 waiters each; restart: "
                        + RESTARTS + " restarts x " + AsyncRedisRestart.KEYS + " holds, " + AsyncRedisRestart.WAITERS
                        + " waiters each (watchdog " + AsyncRedisRestart.WATCHDOG_MILLIS + " ms)",
                real.violations(), real.joined("cut", "kill", "restart"),
                "cut: 0 overlaps, every future back within wait + command timeout + 0.5 s, nothing left (holds, "
                        + "subscriptions, renewals); "
                        + "kill: first waiter within lease + 300 ms of the kill at p99, never before the lease end; "
                        + "restart: every loss heard within renewal + 200 ms, 0 stale writes accepted, new acquisitions "
                        + "granted",
                real.violations() == 0, control.joined("cut", "kill", "restart")));
    }

    @Test
    @Order(1)
    void cutConnectionsLeaveNoOverlapNoPendingFutureAndNothingBehind() throws Exception {
        AsyncConnectionCut.Outcome cut = AsyncConnectionCut.run(redis, "cut", CUT_RUN);
        phases.record("cut", cut.figures(), cut.calls(), cut.violations());
        assertSoftly(softly -> {
            softly.assertThat(cut.cuts()).isPositive();
            softly.assertThat(cut.replyCuts()).as("cuts after an inner release's reply").isPositive();
            softly.assertThat(cut.sweep().overlaps()).as("overlaps").isZero();
            softly.assertThat(cut.lostUpdates() + cut.staleAccepted()).as("lost updates, stale writes accepted")
                    .isZero();
            softly.assertThat(cut.pending()).as("futures still pending").isZero();
            softly.assertThat(cut.latency().max()).as("slowest tryLockAsync, ms")
                    .isLessThanOrEqualTo(AsyncConnectionCut.WAIT_MILLIS + AsyncConnectionCut.SLACK_MILLIS);
            softly.assertThat(cut.failures()).as("outcomes other than granted or timed out").isEmpty();
            softly.assertThat(cut.losses()).as("holds lost").isZero();
            softly.assertThat(cut.holdsLeft()).as("holds left in Redis").isEmpty();
            softly.assertThat(cut.heldLocally()).as("holds left in the clients").isZero();
            softly.assertThat(cut.subscriptionsLeft()).as("subscriptions left").isZero();
            softly.assertThat(cut.renewalsAfter()).as("script calls by idle clients").isZero();
        });
    }

    @Test
    @Order(2)
    void checkerCatchesAReplayedReleaseThatCountsTwice() throws Exception {
        control("cut", BrokenScripts.RELEASE_NO_COUNT_CHECK,
                () -> AsyncConnectionCut.run(redis, "cut-broken", Duration.ofSeconds(3)), found -> found.sweep().overlaps(),
                found -> "cut, 3 s, release without the hold-count check: " + found.sweep().overlaps() + " overlaps, "
                        + found.failures() + " after " + found.replyCuts() + " cuts after an inner release's reply");
    }

    @Test
    @Order(3)
    void aKilledJvmsAsyncHoldsGoToTheAsyncWaitersWhenTheirLeasesEnd() throws Exception {
        AsyncHolderKill.Outcome kill = AsyncHolderKill.run(redis, "kill-", KILLED_JVMS);
        phases.record("kill", kill.figures(), kill.killToGrant.size(), kill.violations());
        assertSoftly(softly -> {
            softly.assertThat(kill.early).as("granted before the lease ended").isZero();
            softly.assertThat(kill.sweep.overlaps()).as("overlaps").isZero();
            softly.assertThat(kill.notGranted + kill.pending).as("waiters not granted, futures pending").isZero();
            softly.assertThat(kill.killToGrant).as("timed kills")
                    .hasSizeGreaterThanOrEqualTo(KILLED_JVMS * AsyncHolderKill.LOCKS - 2);
            softly.assertThat(new Stats(kill.killToGrant).percentile(99))
                    .isLessThanOrEqualTo(AsyncHolderKill.LEASE_MILLIS + AsyncHolderKill.SLACK_MILLIS);
        });
    }

    @Test
    @Order(4)
    void checkerCatchesAWaiterThatIgnoresTheHolder() throws Exception {
        control("kill", BrokenScripts.ACQUIRE_NO_OWNER_CHECK, () -> AsyncHolderKill.run(redis, "kill-broken-", 1),
                found -> found.early, found -> "kill, waiters' acquire without the owner check: " + found.early + " of "
                        + AsyncHolderKill.LOCKS + " locks granted before the lease end, " + found.sweep.overlaps()
                        + " overlaps");
    }

    @Test
    @Order(5)
    void afterARestartFencingRefusesOldHoldersAndNoFutureHangs() throws Exception {
        AsyncRedisRestart.Outcome restart = AsyncRedisRestart.run(redis, "restart", RESTARTS);
        phases.record("restart", restart.figures(), restart.holds + restart.lostAfterRestart.size(),
                restart.violations());
        assertSoftly(softly -> {
            softly.assertThat(restart.lossNotReported).as("losses not heard").isZero();
            softly.assertThat(restart.lostAfterRestart).allSatisfy(ms -> assertThat(ms)
                    .isLessThanOrEqualTo(AsyncRedisRestart.RENEWAL_MILLIS + 200));
            softly.assertThat(restart.unlockLost).as("unlockAsync failed with LockLostException")
                    .isEqualTo(restart.holds);
            softly.assertThat(restart.staleAccepted + restart.lostUpdates).as("stale writes accepted, lost updates")
                    .isZero();
            softly.assertThat(restart.sweep.tokenRegressions()).isZero();
            softly.assertThat(restart.doubleBeliefMillis).as("an old holder's belief after a waiter got in, ms")
                    .isLessThanOrEqualTo(AsyncRedisRestart.RENEWAL_MILLIS + 200);
            softly.assertThat(restart.pending).as("futures pending").isZero();
            softly.assertThat(restart.latency.max()).as("slowest tryLockAsync, ms")
                    .isLessThanOrEqualTo(AsyncRedisRestart.WAIT_MILLIS + AsyncRedisRestart.SLACK_MILLIS);
            softly.assertThat(restart.freshGranted).as("new acquisitions granted").isEqualTo(restart.fresh);
        });
    }

    @Test
    @Order(6)
    void checkerCatchesTokensThatDoNotGrow() throws Exception {
        control("restart", BrokenScripts.ACQUIRE_CONSTANT_TOKEN, () -> AsyncRedisRestart.run(redis, "restart-broken", 2),
                found -> found.staleAccepted, found -> "restart, the same fencing token for everyone: "
                        + found.staleAccepted + " stale writes accepted, " + found.lostUpdates + " lost updates in 2 "
                        + "restarts");
    }

    /**
     * Runs a phase on a broken lock, records what its checker found among the controls, and fails unless the
     * checker counted {@code caught} violations.
     */
    private <T> void control(String phase, String breakage, ScenarioRunner.Trials<T> trials, ToLongFunction<T> caught,
            Function<T, String> found) throws Exception {
        T outcome;
        try (BrokenScripts.Swap broken = BrokenScripts.apply(breakage)) {
            outcome = trials.run();
        }
        controls.record(phase, found.apply(outcome), 1, caught.applyAsLong(outcome));
        scenario.control(() -> controls);
        assertThat(caught.applyAsLong(outcome)).as("violations the checker found on the broken lock: %s",
                found.apply(outcome)).isPositive();
    }
}
