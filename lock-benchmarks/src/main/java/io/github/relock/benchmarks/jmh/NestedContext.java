package io.github.relock.benchmarks.jmh;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.spring.autoconfigure.RelockAutoConfiguration;

/** The Spring context of {@link NestedLockBenchmark}: relock's auto-configuration and the two services. */
@Configuration(proxyBeanMethods = false)
@EnableAspectJAutoProxy(proxyTargetClass = true)
@ImportAutoConfiguration(RelockAutoConfiguration.class)
public class NestedContext {

    /** The server to use; set before the context starts. */
    static volatile RedisStandaloneConfiguration redis = new RedisStandaloneConfiguration();

    @Bean
    LettuceConnectionFactory redisConnectionFactory() {
        return new LettuceConnectionFactory(redis);
    }

    @Bean
    NestedCalls.Inventory inventory() {
        return new NestedCalls.Inventory();
    }

    @Bean
    NestedCalls nestedCalls(NestedCalls.Inventory inventory) {
        return new NestedCalls(inventory);
    }
}
