package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.LockOwner;
import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisServerExtension;

/**
 * Scenario 1: steady contention. 3 clients (separate connections, as separate processes would have) x 8
 * threads x 4 keys, re-entry depth 1-3, 100,000 acquisitions: 0 overlaps, 0 lost updates.
 * With {@code -Drelock.soak=30m} it runs for that long instead.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class Scenario01SteadyContentionIT {

    static final int CLIENTS = 3;
    static final int THREADS = 8;
    static final int KEYS = 4;
    static final int ACQUISITIONS = 100_000;
    static final int CONTROL_ACQUISITIONS = 3_000;

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ScenarioRunner<Contention.Result, Contention.Result> scenario = new ScenarioRunner<>("1",
            "steady contention");

    @Test
    @Order(1)
    void realLockHasNoOverlapsAndNoLostUpdates() throws Exception {
        long acquisitions = Soak.enabled() ? Long.MAX_VALUE : ACQUISITIONS;
        long deadline = System.nanoTime() + (Soak.enabled() ? Soak.duration() : Duration.ofMinutes(4)).toNanos();
        Contention.Result real = scenario.real(() -> run(acquisitions, deadline,
                (client, key) -> client.getLock("k" + key)));
        print("real", real);
        assertThat(real.errors()).as("errors: %s", real.sampleErrors()).isZero();
        assertThat(real.timeouts()).isZero();
        if (!Soak.enabled()) {
            assertThat(real.acquisitions()).isEqualTo(ACQUISITIONS);
        }
        assertThat(real.sweep().overlaps()).isZero();
        assertThat(real.lostUpdates()).isZero();
        assertThat(real.staleAccepted()).isZero();
        assertThat(real.sweep().tokenRegressions()).isZero();
        assertThat(LockHashes.all(redis.commands())).as("locks left behind").isEmpty();
    }

    @Test
    @Order(2)
    void checkerCatchesALockWithOwnershipRemoved() throws Exception {
        // broken on purpose: all threads of a client share one owner, so each "re-enters" the others' hold
        Map<RedisLockClient, LockOwner> shared = new ConcurrentHashMap<>();
        Contention.Result control = scenario.control(() -> run(CONTROL_ACQUISITIONS,
                System.nanoTime() + TimeUnit.MINUTES.toNanos(2),
                (client, key) -> client.getLock("broken" + key,
                        shared.computeIfAbsent(client, RedisLockClient::newOwner))));
        print("ownership removed", control);
        assertThat(control.sweep().overlaps()).isPositive();
        assertThat(control.lostUpdates()).isPositive();
    }

    @AfterAll
    void report() {
        scenario.report(redis.redisVersion(), (real, control) -> {
            long violations = real.violations() + real.errors() + real.timeouts();
            return new ReliabilityReport.Figures(
                    String.format(Locale.ROOT, "%,d acquisitions%s; %d clients x %d threads x %d keys, depth 1-3",
                            real.acquisitions(), Soak.enabled() ? " (soak " + Soak.duration() + ")" : "", CLIENTS,
                            THREADS, KEYS),
                    violations,
                    String.format(Locale.ROOT, "%d overlaps, %d lost updates, %d stale writes accepted, %d token "
                                    + "regressions; %,.0f acquisitions/s", real.sweep().overlaps(), real.lostUpdates(),
                            real.staleAccepted(), real.sweep().tokenRegressions(), real.perSecond()),
                    "0 overlaps, 0 lost updates in 100,000",
                    violations == 0 && (Soak.enabled() || real.acquisitions() >= ACQUISITIONS),
                    String.format(Locale.ROOT, "ownership removed (one owner per client): %,d overlaps, %,d lost "
                                    + "updates in %,d holds", control.sweep().overlaps(), control.lostUpdates(),
                            control.sweep().holds()));
        });
    }

    private static Contention.Result run(long acquisitions, long deadline, Contention.LockFactory lockFor)
            throws Exception {
        List<RedisLockClient> clients = new ArrayList<>();
        try {
            for (int c = 0; c < CLIENTS; c++) {
                // short watchdog: holds stranded by the broken variant free quickly
                clients.add(RedisLockClient.builder(redis.newConnectionFactory()).watchdogTimeout(Duration.ofSeconds(2))
                        .build());
            }
            return new Contention(clients, THREADS, KEYS, "k").run(acquisitions, deadline,
                    30_000, lockFor);
        }
        finally {
            clients.forEach(RedisLockClient::close);
        }
    }

    private static void print(String what, Contention.Result result) {
        System.out.printf(Locale.ROOT, "scenario 1 (%s): %,d acquisitions in %,d ms (%,.0f/s): %s, %d lost updates, "
                        + "%d stale accepted, %d timeouts, %d errors %s%n", what, result.acquisitions(), result.millis(),
                result.perSecond(), result.sweep(), result.lostUpdates(), result.staleAccepted(), result.timeouts(),
                result.errors(), result.sampleErrors());
    }
}
