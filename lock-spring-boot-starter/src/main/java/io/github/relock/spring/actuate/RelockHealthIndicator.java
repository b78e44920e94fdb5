package io.github.relock.spring.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import io.github.relock.core.LockLostEvent;
import io.github.relock.core.LockLostListener;
import io.github.relock.core.LockOwner;
import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.ReentrantDistributedLock;

/**
 * Health of locking itself, not just of Redis: each check takes and releases a probe lock through the
 * client's own scripts. A Redis that still answers {@code PING} but refuses writes (its {@code maxmemory}
 * reached under {@code noeviction}, or a read-only replica the application is still connected to after a
 * failover) is UP for Boot's Redis indicator and DOWN here, with Redis' error in the details.
 *
 * <p>Details: the client id, how many locks this instance holds, how many locks it lost since start
 * (the watchdog found them gone) and the last one. A lost lock does not make the instance unhealthy: it
 * is a past event, and the next acquisition may well succeed.
 *
 * <p>The probe lock is named {@value #PROBE_NAME_PREFIX} + client id, has a short lease and an owner of
 * its own, so it never meets an application lock or an application thread's holds.
 */
public final class RelockHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

    /** Prefix of the probe lock's name; the client id follows. */
    public static final String PROBE_NAME_PREFIX = "relock-health-probe:";

    // if the release never reaches Redis the probe key still disappears on its own, soon
    private static final Duration PROBE_LEASE = Duration.ofSeconds(5);

    private final DistributedLockClient client;
    private final ReentrantDistributedLock probe;
    /** Not a monitor: the probe talks to Redis while it holds this, and virtual threads must not pin. */
    private final ReentrantLock probeGuard = new ReentrantLock();
    private final LockLostListener lostCounter = this::lockLost;
    private final AtomicLong locksLost = new AtomicLong();
    private final AtomicReference<@Nullable LockLostEvent> lastLost = new AtomicReference<>();

    public RelockHealthIndicator(DistributedLockClient client) {
        super("relock health check failed");
        this.client = client;
        LockOwner owner = client.newOwner();
        this.probe = client.getLock(PROBE_NAME_PREFIX + client.getClientId(), owner);
        client.addLockLostListener(this.lostCounter);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        builder.withDetail("clientId", this.client.getClientId())
                .withDetail("heldLocks", this.client.heldLocks().size())
                .withDetail("locksLost", this.locksLost.get());
        LockLostEvent last = this.lastLost.get();
        if (last != null) {
            builder.withDetail("lastLockLost", Map.of("name", last.lockName(), "key", last.key(),
                    "detectedAt", last.detectedAt().toString()));
        }
        long started = System.nanoTime();
        // checks may overlap (several health groups); one probe at a time keeps the probe's hold count at 1
        this.probeGuard.lock();
        try {
            if (!this.probe.tryLock(0, PROBE_LEASE.toMillis(), TimeUnit.MILLISECONDS)) {
                // only this client's probe owner ever takes it: an earlier probe could not release it
                builder.unknown().withDetail("probe", "the probe lock " + this.probe.getKey() + " is still held "
                        + "by an earlier probe that could not release it; it frees when its "
                        + PROBE_LEASE.toSeconds() + " s lease ends");
                return;
            }
            this.probe.unlock();
        }
        finally {
            this.probeGuard.unlock();
        }
        builder.up().withDetail("probe", "took and released " + this.probe.getKey() + " in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
    }

    private void lockLost(LockLostEvent event) {
        this.locksLost.incrementAndGet();
        this.lastLost.set(event);
    }

    @Override
    public void destroy() {
        this.client.removeLockLostListener(this.lostCounter);
    }
}
