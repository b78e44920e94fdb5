package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.ChildJvm;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 3: the holder JVM is SIGSTOPped for twice its lease, a rival takes the lock and writes, the
 * holder is resumed and keeps writing (it never looks at {@code isLost()}: the worst case). The lost-lock
 * listener must fire within one renewal interval + 200 ms of the resume, the rival's lock must be
 * untouched, and the fenced resource must refuse every write the holder makes after the rival's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
class Scenario03HolderPausedIT {

    static final long LEASE_MILLIS = 1_000;
    static final long RENEWAL_MILLIS = LEASE_MILLIS / 3;
    static final int TRIALS = 10;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ScenarioRunner<Outcome, Outcome> scenario = new ScenarioRunner<>("3",
            "holder JVM SIGSTOPped for 2x its lease");
    private RedisLockClient rivalClient;

    /** What a series of trials found. */
    static final class Outcome {
        int trials;
        final List<Long> lostAfterResume = new ArrayList<>();
        long holderWritesAfterResume;
        long refusedAfterResume;
        long delayedRefused;
        long staleAccepted;
        long currentRefused;
        long rivalDisturbed;
        long lostListenerMissing;
        long unlockNotRefused;
        long overlaps;
    }

    @BeforeAll
    void setUp() {
        rivalClient = RedisLockClient.builder(redis.newConnectionFactory()).watchdogTimeout(Duration.ofSeconds(10))
                .build();
    }

    @AfterAll
    void tearDown() {
        rivalClient.close();
        scenario.report(redis.redisVersion(), (real, control) -> {
            Stats lost = new Stats(real.lostAfterResume);
            long violations = real.staleAccepted + real.currentRefused + real.rivalDisturbed + real.lostListenerMissing
                    + real.unlockNotRefused
                    + real.lostAfterResume.stream().filter(m -> m > RENEWAL_MILLIS + 200).count();
            return new ReliabilityReport.Figures(
                    real.trials + " pauses of " + 2 * LEASE_MILLIS + " ms (watchdog lease " + LEASE_MILLIS + " ms); "
                            + real.holderWritesAfterResume + " writes by resumed holders",
                    violations,
                    String.format(Locale.ROOT, "lost-lock listener %d ms (p50) / %d ms (max) after resume; stale "
                                    + "writes refused %d of %d (%.0f%%), plus %d delayed pre-pause writes refused; "
                                    + "rival's lock untouched %d of %d; holds overlapping in time %d (expected: the "
                                    + "pause outlived the lease)", lost.percentile(50), lost.max(),
                            real.refusedAfterResume, real.holderWritesAfterResume,
                            100.0 * real.refusedAfterResume / Math.max(1, real.holderWritesAfterResume),
                            real.delayedRefused, real.trials - real.rivalDisturbed, real.trials, real.overlaps),
                    "listener ≤ renewal interval (" + RENEWAL_MILLIS + " ms) + 200 ms after resume; rival untouched; "
                            + "100% of the paused holder's writes refused",
                    violations == 0 && real.holderWritesAfterResume > 0 && real.trials >= TRIALS,
                    String.format(Locale.ROOT, "acquire handing out a constant fencing token: %d of %d stale writes "
                            + "accepted", control.staleAccepted, control.holderWritesAfterResume));
        });
    }

    @Test
    @Order(1)
    void aResumedHolderLearnsOfTheLossAndItsWritesAreRefused() throws Exception {
        Outcome real = scenario.real(() -> run("paused", TRIALS, null));
        assertThat(real.lostListenerMissing).isZero();
        assertThat(real.lostAfterResume).allSatisfy(millis -> assertThat(millis)
                .isLessThanOrEqualTo(RENEWAL_MILLIS + 200));
        assertThat(real.holderWritesAfterResume).isPositive();
        assertThat(real.refusedAfterResume).isEqualTo(real.holderWritesAfterResume);
        assertThat(real.staleAccepted).isZero();
        assertThat(real.currentRefused).isZero();
        assertThat(real.rivalDisturbed).isZero();
        assertThat(real.unlockNotRefused).isZero();
    }

    @Test
    @Order(2)
    void checkerCatchesALockWhoseTokensDoNotGrow() throws Exception {
        Outcome control = scenario.control(() -> {
            try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.ACQUIRE_CONSTANT_TOKEN)) {
                return run("constant-token", 1, BrokenScripts.ACQUIRE_CONSTANT_TOKEN);
            }
        });
        assertThat(control.staleAccepted).isPositive();
    }

    private Outcome run(String name, int trials, String breakage) throws Exception {
        Outcome outcome = new Outcome();
        FencedResource resource = new FencedResource();
        History history = new History();
        AtomicLong resumedAt = new AtomicLong(Long.MAX_VALUE);
        AtomicLong writesAfterResume = new AtomicLong();
        AtomicLong refusedAfterResume = new AtomicLong();
        AtomicLong delayedRefused = new AtomicLong();
        AtomicLong[] holdSeq = {new AtomicLong()};
        List<String> args = new ArrayList<>(List.of("mode=hold", "ready=1", "port=" + redis.server().port(),
                "name=" + name, "watchdog=" + LEASE_MILLIS));
        if (breakage != null) {
            args.add("broken=" + breakage);
        }
        try (ChildJvm holder = ChildJvm.start(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                ReliabilityChild.class, args.toArray(String[]::new));
                ChildEvents events = new ChildEvents(holder, "WRITE ", line -> {
                    // the holder's write reaches the resource: an unprotected increment carrying its token
                    String[] f = line.split(" ");
                    long sentAt = Long.parseLong(f[2]);
                    String holdId = "holder#" + holdSeq[0].get();
                    boolean accepted = resource.write(name, holdId, Long.parseLong(f[1]), resource.read(name) + 1);
                    if (sentAt >= resumedAt.get()) {
                        writesAfterResume.incrementAndGet();
                        if (!accepted) {
                            refusedAfterResume.incrementAndGet();
                        }
                    }
                    else if (!accepted) {
                        // sent just before the pause but delivered after the rival's grant: a delayed write
                        delayedRefused.incrementAndGet();
                    }
                })) {
            events.await("READY", Duration.ofSeconds(60));
            LockOwner rivalOwner = rivalClient.newOwner();
            ReentrantDistributedLock rival = rivalClient.getLock(name, rivalOwner);
            for (int trial = 0; trial < trials; trial++) {
                holdSeq[0].incrementAndGet();
                resumedAt.set(Long.MAX_VALUE);
                holder.send(trial == 0 ? "acquire" : "reacquire");
                String[] held = events.await("HELD ", Duration.ofSeconds(30)).split(" ");
                long token = Long.parseLong(held[1]);
                long holderAcquired = Long.parseLong(held[2]);
                resource.granted(name, "holder#" + holdSeq[0].get());
                holder.send("write-loop");
                Thread.sleep(100); // a few legitimate writes

                long pausedAt = System.nanoTime();
                holder.pause();
                assertThat(rival.tryLock(LEASE_MILLIS * 3, TimeUnit.MILLISECONDS)).as("rival acquires").isTrue();
                long rivalAcquired = System.nanoTime();
                long rivalToken = rival.fencingToken();
                String rivalHold = "rival#" + trial;
                resource.granted(name, rivalHold);
                assertThat(resource.write(name, rivalHold, rivalToken, resource.read(name) + 1)).isTrue();
                Map<String, String> rivalHash = redis.commands().hgetall(rival.getKey());

                long resumeDue = pausedAt + TimeUnit.MILLISECONDS.toNanos(2 * LEASE_MILLIS);
                Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(resumeDue - System.nanoTime())));
                long resumeInvoked = System.nanoTime(); // before the signal: the measured delay is an upper bound
                resumedAt.set(resumeInvoked);
                holder.resume();
                long lostAt;
                try {
                    lostAt = Long.parseLong(events.await("LOST ", Duration.ofSeconds(5)).split(" ")[2]);
                    outcome.lostAfterResume.add(TimeUnit.NANOSECONDS.toMillis(lostAt - resumeInvoked));
                }
                catch (IllegalStateException ex) {
                    outcome.lostListenerMissing++;
                    lostAt = System.nanoTime();
                }
                Thread.sleep(300); // the holder keeps writing, blind to the loss
                holder.send("stop-writes");
                events.await("STOPPED", Duration.ofSeconds(10));
                holder.send("unlock");
                String unlock = events.await("UNLOCK ", Duration.ofSeconds(10));
                if (!unlock.equals("UNLOCK LockLostException")) {
                    outcome.unlockNotRefused++;
                }
                history.record("holder", "main", name, token, holderAcquired, lostAt);

                // the rival's lock is untouched: same hash, a live lease, same token, its writes accepted
                boolean untouched = redis.commands().hgetall(rival.getKey()).equals(rivalHash)
                        && redis.commands().pttl(rival.getKey()) > 0 && rival.isHeldByCurrentThread()
                        && rival.fencingToken() == rivalToken && !rival.isLost()
                        && resource.write(name, rivalHold, rivalToken, resource.read(name) + 1);
                if (!untouched) {
                    outcome.rivalDisturbed++;
                }
                long rivalReleased = System.nanoTime();
                rival.unlock();
                history.record("rival", rivalOwner.id(), name, rivalToken, rivalAcquired, rivalReleased);
                outcome.trials++;
                System.out.printf("scenario 3 trial %d: token %d, rival token %d, lost-lock listener %s ms after "
                                + "resume, %d writes after resume, %s%n", trial, token, rivalToken,
                        outcome.lostAfterResume.isEmpty() ? "-" : outcome.lostAfterResume.get(
                                outcome.lostAfterResume.size() - 1), writesAfterResume.get(), resource);
            }
        }
        outcome.holderWritesAfterResume = writesAfterResume.get();
        outcome.refusedAfterResume = refusedAfterResume.get();
        outcome.delayedRefused = delayedRefused.get();
        outcome.staleAccepted = resource.staleAccepted();
        outcome.currentRefused = resource.currentRefused();
        outcome.overlaps = history.sweep().overlaps();
        return outcome;
    }
}
