package io.github.relock.sample.reactive.web;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import io.github.relock.core.DistributedLockClient;

/** Logs where to point curl once the server is up. */
@Component
class ReadyMessage {

    private static final Logger log = LoggerFactory.getLogger(ReadyMessage.class);

    private final DistributedLockClient locks;

    ReadyMessage(DistributedLockClient locks) {
        this.locks = locks;
    }

    @EventListener(ApplicationReadyEvent.class)
    void ready(ApplicationReadyEvent event) {
        Environment environment = event.getApplicationContext().getEnvironment();
        log.info("Ready on http://{}:{} (lock client {}): POST /orders, POST /orders/{id}/pay[?delayMs=5000], "
                + "GET /orders/{id}, POST /tenants/{tenant}/reindex[?steps=10], GET /actuator/relock",
                environment.getProperty("server.address", "localhost"), environment.getProperty("local.server.port"),
                locks.getClientId());
    }
}
