package io.github.relock.sample.reactive;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

import io.github.relock.sample.redis.EmbeddedRedisConfiguration;

/**
 * The reactive relock sample: a WebFlux service whose {@code Mono} and {@code Flux} methods hold their locks
 * from subscription to termination. {@code java -jar lock-sample-reactive.jar} serves HTTP on port 8090.
 */
@SpringBootApplication
@EnableConfigurationProperties(ReactiveSampleProperties.class)
@Import(EmbeddedRedisConfiguration.class) // lock-redis-process: a redis-server of its own when none answers
public class ReactiveSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(ReactiveSampleApplication.class, args);
    }
}
