package io.github.relock.chaos;

import java.util.concurrent.TimeUnit;

/**
 * The timings every part of a run shares: the clients' settings and the bounds the checkers allow. Leases
 * are short, so that faults make them run out, but with a second of room for a loaded 2-core machine.
 */
final class Timing {

    /** The watchdog lease of every client. */
    static final long WATCHDOG_MILLIS = 1_500;
    /** The watchdog renews every third of its lease. */
    static final long RENEWAL_MILLIS = WATCHDOG_MILLIS / 3;
    /** Command timeout of the client JVMs' connection factories. */
    static final long COMMAND_TIMEOUT_MILLIS = 1_000;
    /** With minReplicas: how long WAIT waits; below the renewal interval, as the client demands. */
    static final long REPLICA_ACK_MILLIS = 100;
    /** Scheduling slack on a shared 2-core machine: GC, three JVMs, Redis and the parent on two cores. */
    static final long SLACK_MILLIS = 1_000;
    /**
     * A watchdog holder must hear of a loss this long after the fault that caused it ended: the next
     * renewal round, one command that may still be waiting for its timeout, and slack.
     */
    static final long TOLD_WITHIN_MILLIS = RENEWAL_MILLIS + COMMAND_TIMEOUT_MILLIS + SLACK_MILLIS;
    /** An acquisition or release may overrun its wait by this much: three commands that time out, and slack. */
    static final long OVERRUN_MILLIS = 3 * COMMAND_TIMEOUT_MILLIS + SLACK_MILLIS;
    /** A call that waits as long as it takes (lock()) counts as stalled after this. */
    static final long STALL_MILLIS = 30_000;
    /** Annotated methods: wait of the synchronous ones, of the async one, and the fixed lease of "leased". */
    static final long ANNOTATED_WAIT_MILLIS = 400;
    static final long ANNOTATED_ASYNC_WAIT_MILLIS = 600;
    static final long ANNOTATED_LEASE_MILLIS = 800;

    private Timing() {
    }

    static long nanos(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }
}
