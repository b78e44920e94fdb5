package io.github.relock.sample.web;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import io.github.relock.core.RedisLockClient;

/** Says where to point curl once the web server is up. */
@Component
class ReadyMessage {

    private static final Logger log = LoggerFactory.getLogger(ReadyMessage.class);

    @EventListener
    void ready(ApplicationReadyEvent event) {
        Environment environment = event.getApplicationContext().getEnvironment();
        String port = environment.getProperty("local.server.port");
        if (port == null) {
            return; // --demo, or a second instance without a web server
        }
        String address = environment.getProperty("server.address", "localhost");
        RedisLockClient client = event.getApplicationContext().getBeanProvider(RedisLockClient.class).getIfAvailable();
        String lockClient = client != null ? client.getClientId() : "(none)";
        log.info("Ready on http://{}:{} (lock client {}): POST /orders, POST /orders/{id}/pay[?delayMs=5000], "
                + "GET /orders/{id}, GET /actuator/relock", address, port, lockClient);
    }
}
