package io.github.relock.sample.redis;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code sample.embedded-redis.*}: whether and how a sample starts its own redis-server. */
@ConfigurationProperties("sample.embedded-redis")
public class EmbeddedRedisProperties {

    /**
     * Whether to start an embedded redis-server at spring.data.redis.host/port when no Redis answers
     * there. Off: the application fails to reach Redis instead, as a production service would.
     */
    private boolean enabled = true;

    /** How long to wait for the embedded redis-server to accept connections. */
    private Duration startTimeout = Duration.ofSeconds(10);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getStartTimeout() {
        return startTimeout;
    }

    public void setStartTimeout(Duration startTimeout) {
        this.startTimeout = startTimeout;
    }
}
