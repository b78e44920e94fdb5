package io.github.relock.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.HeldLock;

/**
 * Closes the lock client when the context stops, once the locks its watchdog keeps have been released, and before
 * the Redis connection factory stops (phase 0): renewals end while Redis still answers, and the pub/sub connection
 * closes before the factory tears its connections down under it.
 *
 * <p>Work that still holds a lock when the context closes (an {@code @Async} call that the task executor waits for
 * with {@code spring.task.execution.shutdown.await-termination=true}, a scheduled job) keeps its lock, renewed,
 * for up to {@code spring.lifecycle.timeout-per-shutdown-phase}: the factory stops only after this phase, so that
 * work can finish and release it. A lock with a fixed lease is not waited for: closing the client does not
 * shorten it. A locked call still running when the client closes ends with a
 * {@link io.github.relock.core.LockLostException} instead of returning as if it had held its lock throughout.
 */
final class RelockClientLifecycle implements SmartLifecycle {

    /** Above the connection factory's phase 0, so this stops first; below the web server's, so requests drain first. */
    static final int PHASE = 100;

    private static final Logger log = LoggerFactory.getLogger(RelockClientLifecycle.class);
    private static final long POLL_MILLIS = 10;

    private final DistributedLockClient client;
    private final Duration releaseWait;

    /**
     * @param releaseWait how long to wait for held locks to be released before closing the client anyway
     */
    RelockClientLifecycle(DistributedLockClient client, Duration releaseWait) {
        this.client = client;
        this.releaseWait = releaseWait;
    }

    @Override
    public void start() {
        // the client works from construction; nothing to start
    }

    @Override
    public void stop() {
        awaitReleases();
        client.close();
    }

    /** A shutdown poll, not a lock wait: the client tells no one when its last hold goes. */
    private void awaitReleases() {
        List<HeldLock> held = renewed();
        if (held.isEmpty()) {
            return;
        }
        log.info("Waiting up to {} for {} held lock(s) to be released before closing the lock client", releaseWait,
                held.size());
        long deadline = System.nanoTime() + releaseWait.toNanos();
        while (!held.isEmpty() && deadline - System.nanoTime() > 0) {
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
            held = renewed();
        }
        if (!held.isEmpty()) {
            log.warn("Closing the lock client while {} still hold(s) {}: their leases are no longer renewed, and "
                    + "@DistributedLock calls still running end with LockLostException. Raise "
                    + "spring.lifecycle.timeout-per-shutdown-phase to give them longer.",
                    held.stream().map(HeldLock::ownerId).distinct().toList(), held.stream().map(HeldLock::name).toList());
        }
    }

    private List<HeldLock> renewed() {
        return client.heldLocks().stream().filter(HeldLock::watchdog).toList();
    }

    @Override
    public boolean isRunning() {
        return !client.isClosed();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
