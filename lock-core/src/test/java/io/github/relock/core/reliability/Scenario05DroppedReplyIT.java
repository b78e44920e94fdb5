package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.core.ReentrantDistributedLock;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 5: the connection drops after a release was sent, before its reply arrived (a TCP proxy in
 * front of Redis lets the release run, swallows the reply and cuts). Lettuce re-sends the command after
 * it reconnects and relock retries what times out, so the release reaches Redis twice or more: the hold
 * count must still drop by exactly one. 1,000 trials at re-entry depth 1-3, the cut at a random level;
 * afterwards, and 3 leases later, no key may be left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
class Scenario05DroppedReplyIT {

    static final int TRIALS = 1_000;
    static final long LEASE_MILLIS = 1_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ScenarioRunner<Outcome, Outcome> scenario = new ScenarioRunner<>("5",
            "connection dropped after a release was sent, before its reply");

    static final class Outcome {
        int trials;
        int cuts;
        long doubleDecrements;
        long lostReleases; // a release that did not take effect at all
        long exceptions;
        final List<String> sampleExceptions = new ArrayList<>();
        long orphanKeys = -1;
        final List<Long> unlockMillis = new ArrayList<>();
    }

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, control) -> {
            Stats unlock = new Stats(real.unlockMillis);
            long violations = real.doubleDecrements + real.lostReleases + Math.max(0, real.orphanKeys)
                    + real.exceptions;
            return new ReliabilityReport.Figures(
                    real.trials + " trials (" + real.cuts + " connections cut), depth 1-3",
                    violations,
                    String.format(Locale.ROOT, "%d double decrements, %d releases lost, %d exceptions from unlock; "
                                    + "unlock with the cut took p50 %d / p99 %d ms; %d orphan keys 3 leases later",
                            real.doubleDecrements, real.lostReleases, real.exceptions, unlock.percentile(50),
                            unlock.percentile(99), real.orphanKeys),
                    "0 double decrements over 1,000 trials; 0 orphan keys after 3x lease",
                    violations == 0 && real.trials >= TRIALS && real.cuts >= TRIALS,
                    String.format(Locale.ROOT, "release without the hold-count check: %d double decrements in %d "
                            + "trials", control.doubleDecrements, control.trials));
        });
    }

    @Test
    @Order(1)
    void aReleaseThatRanTwiceCountsOnce() throws Exception {
        Outcome real = scenario.real(() -> run("dropped", TRIALS));
        assertThat(real.cuts).isEqualTo(TRIALS);
        assertThat(real.doubleDecrements).isZero();
        assertThat(real.lostReleases).isZero();
        assertThat(real.exceptions).as("%s", real.sampleExceptions).isZero();
        assertThat(real.orphanKeys).isZero();
    }

    @Test
    @Order(2)
    void checkerCatchesAReleaseWithoutTheCountCheck() throws Exception {
        Outcome control = scenario.control(() -> {
            try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.RELEASE_NO_COUNT_CHECK)) {
                return run("broken", 50);
            }
        });
        assertThat(control.doubleDecrements).isPositive();
    }

    private Outcome run(String prefix, int trials) throws Exception {
        Outcome outcome = new Outcome();
        List<String> names = LockHashes.numbered(prefix + "-", trials);
        RedisLockClient client;
        try (ChaosProxy proxy = new ChaosProxy(redis.server().port()); Factories factories = new Factories()) {
            client = RedisLockClient.builder(factories.standalone(proxy.port(), Duration.ofSeconds(1))).build();
            try {
                for (int trial = 0; trial < trials; trial++) {
                    String name = names.get(trial);
                    ReentrantDistributedLock lock = client.getLock(name);
                    int depth = 1 + ThreadLocalRandom.current().nextInt(3);
                    int cutAt = 1 + ThreadLocalRandom.current().nextInt(depth); // the release leaving cutAt-1 holds
                    // a fixed lease: no watchdog renewal shares the connection at the time of the cut
                    assertThat(lock.tryLock(5_000, LEASE_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
                    for (int i = 1; i < depth; i++) {
                        lock.lock(LEASE_MILLIS, TimeUnit.MILLISECONDS);
                    }
                    String owner = client.heldLocks().stream().filter(h -> h.name().equals(name)).findFirst()
                            .orElseThrow().ownerId();
                    String releaseChannel = client.redisKeys(name).releaseChannel();
                    int held = depth;
                    while (held > 0) {
                        boolean cut = held == cutAt;
                        if (cut) {
                            proxy.cutAfterReplyTo(releaseChannel); // only the release script carries the channel
                        }
                        long start = System.nanoTime();
                        try {
                            lock.unlock();
                        }
                        catch (RuntimeException ex) {
                            outcome.exceptions++;
                            if (outcome.sampleExceptions.size() < 5) {
                                outcome.sampleExceptions.add(ex.toString());
                            }
                        }
                        if (cut) {
                            outcome.unlockMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                            proxy.disarm();
                        }
                        held--;
                        // the truth, read past the proxy
                        String count = redis.commands().hget(lock.getKey(), owner);
                        long inRedis = count == null ? 0 : Long.parseLong(count);
                        if (inRedis < held) {
                            outcome.doubleDecrements++;
                            held = (int) inRedis; // the broken lock gave back more than one
                        }
                        else if (inRedis > held) {
                            outcome.lostReleases++;
                        }
                    }
                    outcome.trials++;
                }
                outcome.cuts = proxy.cuts();
                assertThat(LockHashes.left(redis.commands(), client, names))
                        .as("locks left right after the trials").isEmpty();
            }
            finally {
                client.close();
            }
        }
        Thread.sleep(3 * LEASE_MILLIS);
        outcome.orphanKeys = LockHashes.left(redis.commands(), client, names).size();
        System.out.printf("scenario 5 %s: %d trials, %d cuts, %d double decrements, %d lost releases, %d exceptions %s, "
                        + "unlock with cut %s, %d orphans%n", prefix, outcome.trials, outcome.cuts,
                outcome.doubleDecrements, outcome.lostReleases, outcome.exceptions, outcome.sampleExceptions,
                new Stats(outcome.unlockMillis), outcome.orphanKeys);
        return outcome;
    }
}
