package io.github.relock.core.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
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

    static final long started = System.nanoTime();
    static Contention.Result real;
    static Contention.Result control;
    static long lostEvents = -1;
    static int migrations;
    static int failovers;
    static final List<String> chaosErrors = new ArrayList<>();

    @AfterAll
    static void report() {
        if (real == null || control == null) {
            return;
        }
        long violations = real.violations() + lostEvents + real.errors();
        ReliabilityReport.write(new ReliabilityReport.Row("10", "Redis Cluster: slot migration and CLUSTER FAILOVER "
                        + "under load",
                String.format(Locale.ROOT, "%,d acquisitions (%d clients x %d threads x %d keys, depth 1-3) during %d "
                        + "slot migrations and %d CLUSTER FAILOVERs; 3 primaries + 3 replicas", real.acquisitions(),
                        CLIENTS, THREADS, KEYS, migrations, failovers),
                violations,
                String.format(Locale.ROOT, "%d overlaps, %d lost updates, %d token regressions, %d lost-lock events, %d "
                                + "failed lock calls, %d timed-out waits; %,.0f acquisitions/s", real.sweep().overlaps(),
                        real.lostUpdates(), real.sweep().tokenRegressions(), lostEvents, real.errors(),
                        real.timeouts(), real.perSecond()),
                "0 overlaps; MOVED/ASK handled; 0 spurious lost-lock events",
                violations == 0 && migrations >= MIGRATIONS && failovers >= FAILOVERS,
                String.format(Locale.ROOT, "acquire without the owner check: %,d overlaps, %,d lost updates in %,d holds",
                        control.sweep().overlaps(), control.lostUpdates(), control.sweep().holds()),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)), cluster.setup().nodes().get(0).version());
    }

    @Test
    @Order(1)
    void migrationsAndFailoversUnderLoadGrantNothingTwice() throws Exception {
        RedisClusterSetup setup = cluster.setup();
        AtomicLong lost = new AtomicLong();
        List<RedisLockClient> clients = new ArrayList<>();
        ExecutorService chaos = Executors.newSingleThreadExecutor();
        try {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(RedisLockClient.builder(cluster.newConnectionFactory()).watchdogTimeout(Duration.ofSeconds(3))
                        .lockLostListener(e -> lost.incrementAndGet()).build());
            }
            Contention contention = new Contention(clients, THREADS, KEYS, "c");
            Future<?> faults = chaos.submit(() -> {
                try {
                    Thread.sleep(1_000); // load first
                    for (int round = 0; round < Math.max(MIGRATIONS, FAILOVERS); round++) {
                        if (round < MIGRATIONS) {
                            migrate(setup, "lock:{c" + (round % KEYS) + "}");
                            Thread.sleep(700);
                        }
                        if (round < FAILOVERS) {
                            failover(setup, "lock:{c" + ((round + 3) % KEYS) + "}");
                            Thread.sleep(700);
                        }
                    }
                }
                catch (Exception ex) {
                    synchronized (chaosErrors) {
                        chaosErrors.add(ex.toString());
                    }
                }
                finally {
                    contention.stop();
                }
                return null;
            });
            real = contention.run(Long.MAX_VALUE, System.nanoTime() + TimeUnit.MINUTES.toNanos(3), 30_000,
                    (client, key) -> client.getLock("c" + key));
            faults.get(60, TimeUnit.SECONDS);
            Thread.sleep(3_000); // a renewal round after the last fault, for late lost-lock reports
            lostEvents = lost.get();
        }
        finally {
            chaos.shutdownNow();
            clients.forEach(RedisLockClient::close);
        }
        for (Throwable error : real.sampleErrors()) {
            StringBuilder chain = new StringBuilder();
            for (Throwable t = error; t != null; t = t.getCause()) {
                chain.append(" <- ").append(t);
            }
            System.out.println("scenario 10 error:" + chain);
        }
        System.out.printf("scenario 10: %,d acquisitions, %s, %d lost updates, %d stale accepted, %d lost events, %d "
                        + "errors %s, %d timeouts, %d migrations, %d failovers, chaos errors %s%n", real.acquisitions(),
                real.sweep(), real.lostUpdates(), real.staleAccepted(), lostEvents, real.errors(), real.sampleErrors(),
                real.timeouts(), migrations, failovers, chaosErrors);
        assertThat(chaosErrors).isEmpty();
        assertThat(migrations).isEqualTo(MIGRATIONS);
        assertThat(failovers).isEqualTo(FAILOVERS);
        assertThat(real.sweep().overlaps()).isZero();
        assertThat(real.lostUpdates()).isZero();
        assertThat(real.sweep().tokenRegressions()).isZero();
        assertThat(lostEvents).as("spurious lost-lock events").isZero();
        assertThat(real.errors()).as("failed lock calls: %s", real.sampleErrors()).isZero();
    }

    @Test
    @Order(2)
    void checkerCatchesALockWithoutTheOwnerCheck() throws Exception {
        List<RedisLockClient> clients = new ArrayList<>();
        try (BrokenScripts.Swap broken = BrokenScripts.apply(BrokenScripts.ACQUIRE_NO_OWNER_CHECK)) {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(RedisLockClient.builder(cluster.newConnectionFactory()).watchdogTimeout(Duration.ofSeconds(2))
                        .build());
            }
            control = new Contention(clients, THREADS, KEYS, "broken").run(2_000,
                    System.nanoTime() + TimeUnit.MINUTES.toNanos(1), 1_000, (client, key) -> client.getLock("b" + key));
        }
        finally {
            clients.forEach(RedisLockClient::close);
        }
        System.out.printf("scenario 10 control: %s, %d lost updates%n", control.sweep(), control.lostUpdates());
        assertThat(control.sweep().overlaps()).isPositive();
    }

    /** Moves the slot of {@code key} to the next primary. */
    private static void migrate(RedisClusterSetup setup, String key) {
        int slot = SlotHash.getSlot(key);
        RedisServer owner = setup.nodeForSlot(slot);
        List<RedisServer> primaries = primaries(setup);
        RedisServer target = primaries.get((primaries.indexOf(owner) + 1) % primaries.size());
        setup.migrateSlot(slot, target);
        migrations++;
        System.out.printf("scenario 10: slot %d (%s) moved from %s to %s%n", slot, key, owner, target);
    }

    /** {@code CLUSTER FAILOVER} on the replica of the primary that owns {@code key}; waits until it took over. */
    private static void failover(RedisClusterSetup setup, String key) throws InterruptedException {
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
        failovers++;
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
