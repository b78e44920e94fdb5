package io.github.relock.core.internal;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

/**
 * Keeps the leases of watchdog holds alive: one thread per client renews every such hold every third
 * of the watchdog timeout, in batched script calls. A hold the renewal finds gone is marked lost and
 * reported. Taking a hold out of the {@link HoldRegistry} is what stops its renewal.
 */
public final class LeaseWatchdog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

    private final HoldRegistry holds;
    private final LockCommands commands;
    private final long leaseMillis;
    private final Consumer<Hold> lost;
    private final ScheduledExecutorService scheduler;
    private volatile Thread thread;

    public LeaseWatchdog(HoldRegistry holds, LockCommands commands, long leaseMillis, String threadName,
            Consumer<Hold> lost) {
        this.holds = holds;
        this.commands = commands;
        this.leaseMillis = leaseMillis;
        this.lost = lost;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread created = new Thread(task, threadName);
            created.setDaemon(true);
            this.thread = created;
            return created;
        });
        long interval = Math.max(1, leaseMillis / 3);
        scheduler.scheduleWithFixedDelay(this::renewAll, interval, interval, TimeUnit.MILLISECONDS);
    }

    /** One renewal round; also callable directly, e.g. by tests. */
    public void renewAll() {
        List<Hold> due = holds.renewable();
        if (due.isEmpty()) {
            return;
        }
        for (List<Hold> batch : commands.renewalBatches(due)) {
            renew(batch);
        }
    }

    private void renew(List<Hold> batch) {
        long sent = System.nanoTime();
        LockCommands.Renewal renewal;
        try {
            renewal = commands.renew(batch, leaseMillis);
        }
        catch (DataAccessException | IllegalStateException ex) {
            // unknown outcome: try again next round, the lease still has two rounds left
            log.warn("Could not renew {} lock lease(s); retrying in {} ms: {}", batch.size(), leaseMillis / 3,
                    ex.getMessage());
            reportUnacknowledgedExpiry(batch);
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            Hold hold = batch.get(i);
            if (renewal.renewed().get(i)) {
                hold.leaseRenewed(leaseMillis);
                if (renewal.acknowledged()) {
                    hold.acknowledged(sent, leaseMillis);
                }
            }
            else if (holds.get(hold.keys(), hold.ownerId()) == hold && !hold.lost()) {
                // still registered, so not a release racing this renewal: the lock really is gone
                reportLost(hold);
            }
        }
        if (!renewal.acknowledged()) {
            reportUnacknowledgedExpiry(batch);
        }
    }

    /**
     * With minReplicas: a hold whose lease no replica has acknowledged beyond the next round is reported
     * lost now. The primary may still keep it (a partitioned primary, renewing for a holder that can reach
     * it), but after a failover the lock ends where the replicas' lease ends, and another owner may get it.
     */
    private void reportUnacknowledgedExpiry(List<Hold> batch) {
        if (!commands.awaitsReplicas()) {
            return;
        }
        // rounds run with a fixed delay, so the next one ends a renewal interval and a WAIT from now
        long nextRound = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(Math.max(1, leaseMillis / 3) + commands.replicaAckTimeoutMillis());
        for (Hold hold : batch) {
            if (nextRound - hold.acknowledgedUntilNanos() >= 0 && holds.get(hold.keys(), hold.ownerId()) == hold
                    && !hold.lost()) {
                log.warn("Lock '{}': replicas acknowledged its lease only until now; reporting it lost",
                        hold.keys().name());
                reportLost(hold);
            }
        }
    }

    private void reportLost(Hold hold) {
        hold.markLost();
        lost.accept(hold);
    }


    /**
     * Stops renewing; leases then run out on their own. Returns once the watchdog thread has ended:
     * the executor reports termination while its last thread is still on its way out.
     */
    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
            Thread last = thread;
            if (last != null && last != Thread.currentThread()) {
                last.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
