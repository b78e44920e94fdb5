package io.github.relock.chaos;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** Starts a client JVM's {@link ChaosApp} on the JVM's connection factory, with the run's lock timings. */
final class AnnotatedContext {

    private AnnotatedContext() {
    }

    static ConfigurableApplicationContext start(RedisConnectionFactory factory, int jvm, int minReplicas) {
        return new SpringApplicationBuilder(ChaosApp.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .registerShutdownHook(false)
                .properties("chaos.jvm=" + jvm,
                        "relock.watchdog-timeout=" + Timing.WATCHDOG_MILLIS + "ms",
                        "relock.min-replicas=" + minReplicas,
                        "relock.replica-ack-timeout=" + Timing.REPLICA_ACK_MILLIS + "ms",
                        "spring.data.redis.repositories.enabled=false")
                // the JVM's factory, not one Boot would build: the pool faults must reach the starter's client
                .initializers(context -> context.getBeanFactory().registerSingleton("redisConnectionFactory", factory))
                .run();
    }
}
