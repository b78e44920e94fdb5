package io.github.relock.spring.autoconfigure;

import org.springframework.context.SmartLifecycle;

import io.github.relock.core.DistributedLockClient;

/**
 * Closes the lock client when the context stops, before the Redis connection factory stops (phase 0):
 * renewals end while Redis still answers, and the pub/sub connection closes before the factory tears
 * its connections down under it.
 */
final class RelockClientLifecycle implements SmartLifecycle {

    /** Above the connection factory's phase 0, so this stops first; below the web server's, so requests drain first. */
    static final int PHASE = 100;

    private final DistributedLockClient client;

    RelockClientLifecycle(DistributedLockClient client) {
        this.client = client;
    }

    @Override
    public void start() {
        // the client works from construction; nothing to start
    }

    @Override
    public void stop() {
        client.close();
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
