package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.relock.core.RedisLockClient;
import io.github.relock.test.RedisClusterExtension;
import io.github.relock.test.RedisClusterSetup;
import io.github.relock.test.RedisServer;
import io.lettuce.core.cluster.SlotHash;

/**
 * Scenario 10: Redis Cluster, 3 primaries with a replica each. Under steady contention (3 clients x 4
 * threads x 6 keys, re-entry, watchdog leases renewed per slot), the slots of lock keys are migrated to
 * other primaries (clients follow MOVED and ASK) and replicas of primaries that hold lock keys take over
 * with {@code CLUSTER FAILOVER}. No two holds may overlap, no update may be lost, and no lock may be
 * reported lost (none was).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
class Scenario10ClusterIT {

    static final int CLIENTS = 3;
    static final int THREADS = 4;
    static final int KEYS = 6;
    static final int MIGRATIONS = 4;
    static final int FAILOVERS = 3;

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension(3, 1);

    private final ScenarioRunner<Outcome, Contention.Result> scenario = new ScenarioRunner<>("10",
            "Redis Cluster: slot migration and CLUSTER FAILOVER under load");

    /** Contention under faults, and the faults that were done to it. */
    record Outcome(Contention.Result contention, long lostEvents, Faults faults) {
    }

    /** The slot migrations and failovers done while the clients work, and what went wrong doing them. */
    static final class Faults {
        final AtomicInteger migrations = new AtomicInteger();
        final AtomicInteger failovers = new AtomicInteger();
        final List<String> errors = new CopyOnWriteArrayList<>();
    }

    @AfterAll
    void report() {
        scenario.report(cluster.setup().nodes().get(0).version(), (outcome, control) -> {
            Contention.Result real = outcome.contention();
            long violations = real.violations() + outcome.lostEvents() + real.errors();
            int migrations = outcome.faults().migrations.get();
            int failovers = outcome.faults().failovers.get();
            return new ReliabilityReport.Figures(
                    String.format(Locale.ROOT, "%,d acquisitions (%d clients x %d threads x %d keys, depth 1-3) "
                                    + "during %d slot migrations and %d CLUSTER FAILOVERs; 3 primaries + 3 replicas",
                            real.acquisitions(), CLIENTS, THREADS, KEYS, migrations, failovers),
                    violations,
                    String.format(Locale.ROOT, "%d overlaps, %d lost updates, %d token regressions, %d lost-lock "
                                    + "events, %d failed lock calls, %d timed-out waits; %,.0f acquisitions/s",
                            real.sweep().overlaps(), real.lostUpdates(), real.sweep().tokenRegressions(),
                            outcome.lostEvents(), real.errors(), real.timeouts(), real.perSecond()),
                    "0 overlaps; MOVED/ASK handled; 0 spurious lost-lock events",
                    violations == 0 && migrations >= MIGRATIONS && failovers >= FAILOVERS,
                    String.format(Locale.ROOT, "acquire without the owner check: %,d overlaps, %,d lost updates in %,d "
                            + "holds", control.sweep().overlaps(), control.lostUpdates(), control.sweep().holds()));
        });
    }

    @Test
    @Order(1)
    void migrationsAndFailoversUnderLoadGrantNothingTwice() throws Exception {
        Outcome outcome = scenario.real(this::contentionUnderFaults);
        Contention.Result real = outcome.contention();
        Faults faults = outcome.faults();
        for (Throwable error : real.sampleErrors()) {
            StringBuilder chain = new StringBuilder();
            for (Throwable t = error; t != null; t = t.getCause()) {
                chain.append(" <- ").append(t);
            }
            System.out.println("scenario 10 error:" + chain);
        }
        System.out.printf("scenario 10: %,d acquisitions, %s, %d lost updates, %d stale accepted, %d lost events, %d "
                        + "errors %s, %d timeouts, %d migrations, %d failovers, chaos errors %s%n", real.acquisitions(),
                real.sweep(), real.lostUpdates(), real.staleAccepted(), outcome.lostEvents(), real.errors(),
                real.sampleErrors(), real.timeouts(), faults.migrations.get(), faults.failovers.get(), faults.errors);
        assertThat(faults.errors).isEmpty();
        assertThat(faults.migrations.get()).isEqualTo(MIGRATIONS);
        assertThat(faults.failovers.get()).isEqualTo(FAILOVERS);
        assertThat(real.sweep().overlaps()).isZero();
        assertThat(real.lostUpdates()).isZero();
        assertThat(real.sweep().tokenRegressions()).isZero();
        assertThat(outcome.lostEvents()).as("spurious lost-lock events").isZero();
        assertThat(real.errors()).as("failed lock calls: %s", real.sampleErrors()).isZero();
    }

    @Test
    @Order(2)
    void checkerCatchesALockWithoutTheOwnerCheck() throws Exception {
        List<RedisLockClient> clients = new ArrayList<>();
        Contention.Result control;
        try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.ACQUIRE_NO_OWNER_CHECK)) {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(RedisLockClient.builder(cluster.newConnectionFactory())
                        .watchdogTimeout(Duration.ofSeconds(2)).build());
            }
            control = scenario.control(() -> new Contention(clients, THREADS, KEYS, "broken").run(2_000,
                    System.nanoTime() + TimeUnit.MINUTES.toNanos(1), 1_000,
                    (client, key) -> client.getLock("b" + key)));
        }
        finally {
            clients.forEach(RedisLockClient::close);
        }
        System.out.printf("scenario 10 control: %s, %d lost updates%n", control.sweep(), control.lostUpdates());
        assertThat(control.sweep().overlaps()).isPositive();
    }

    /** Contention on keys c0..c5 while their slots move and their primaries fail over. */
    private Outcome contentionUnderFaults() throws Exception {
        RedisClusterSetup setup = cluster.setup();
        AtomicLong lost = new AtomicLong();
        Faults faults = new Faults();
        List<RedisLockClient> clients = new ArrayList<>();
        ExecutorService chaos = Executors.newSingleThreadExecutor();
        try {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(RedisLockClient.builder(cluster.newConnectionFactory()).watchdogTimeout(Duration.ofSeconds(3))
                        .lockLostListener(e -> lost.incrementAndGet()).build());
            }
            Contention contention = new Contention(clients, THREADS, KEYS, "c");
            RedisLockClient names = clients.get(0);
            Future<?> chaosDone = chaos.submit(() -> {
                try {
                    Thread.sleep(1_000); // load first
                    for (int round = 0; round < Math.max(MIGRATIONS, FAILOVERS); round++) {
                        if (round < MIGRATIONS) {
                            migrate(setup, names.redisKeys("c" + (round % KEYS)).lock(), faults);
                            Thread.sleep(700);
                        }
                        if (round < FAILOVERS) {
                            failover(setup, names.redisKeys("c" + ((round + 3) % KEYS)).lock(), faults);
                            Thread.sleep(700);
                        }
                    }
                }
                catch (Exception ex) {
                    faults.errors.add(ex.toString());
                }
                finally {
                    contention.stop();
                }
                return null;
            });
            Contention.Result result = contention.run(Long.MAX_VALUE, System.nanoTime() + TimeUnit.MINUTES.toNanos(3),
                    30_000, (client, key) -> client.getLock("c" + key));
            chaosDone.get(60, TimeUnit.SECONDS);
            Thread.sleep(3_000); // a renewal round after the last fault, for late lost-lock reports
            return new Outcome(result, lost.get(), faults);
        }
        finally {
            chaos.shutdownNow();
            clients.forEach(RedisLockClient::close);
        }
    }

    /** Moves the slot of {@code key} to the next primary. */
    private static void migrate(RedisClusterSetup setup, String key, Faults faults) {
        int slot = SlotHash.getSlot(key);
        RedisServer owner = setup.nodeForSlot(slot);
        List<RedisServer> primaries = primaries(setup);
        RedisServer target = primaries.get((primaries.indexOf(owner) + 1) % primaries.size());
        setup.migrateSlot(slot, target);
        faults.migrations.incrementAndGet();
        System.out.printf("scenario 10: slot %d (%s) moved from %s to %s%n", slot, key, owner, target);
    }

    /** {@code CLUSTER FAILOVER} on the replica of the primary that owns {@code key}; waits until it took over. */
    private static void failover(RedisClusterSetup setup, String key, Faults faults) throws InterruptedException {
        int slot = SlotHash.getSlot(key);
        RedisServer owner = setup.nodeForSlot(slot);
        RedisServer replica = setup.nodes().stream()
                .filter(n -> n.isRunning() && role(n).startsWith("slave") && role(n).contains("," + owner.port() + ","))
                .findFirst().orElseThrow(() -> new IllegalStateException("no replica of " + owner));
        // a manual failover gives up silently when the replica cannot catch up within 5 s (a loaded machine):
        // ask again, as an operator would
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long askedAt = 0;
        while (!(role(replica).startsWith("master") && setup.nodeForSlot(slot) == replica)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(replica + " did not take over slot " + slot + " from " + owner);
            }
            if (System.nanoTime() - askedAt > TimeUnit.SECONDS.toNanos(6) && role(replica).startsWith("slave")) {
                replica.command("CLUSTER", "FAILOVER");
                askedAt = System.nanoTime();
            }
            Thread.sleep(20);
        }
        faults.failovers.incrementAndGet();
        System.out.printf("scenario 10: CLUSTER FAILOVER: %s took over slot %d (%s) from %s%n", replica, slot, key,
                owner);
    }

    private static List<RedisServer> primaries(RedisClusterSetup setup) {
        return setup.nodes().stream().filter(n -> n.isRunning() && role(n).startsWith("master")).toList();
    }

    private static String role(RedisServer node) {
        return String.valueOf(node.command("ROLE")).replace("\n", ",");
    }
}
