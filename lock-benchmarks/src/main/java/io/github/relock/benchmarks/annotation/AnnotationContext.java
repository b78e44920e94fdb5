package io.github.relock.benchmarks.annotation;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.autoconfigure.RelockAutoConfiguration;

/**
 * A minimal context: no web, no component scan, just a connection factory, relock's auto-configuration
 * (imported explicitly, so no {@code AutoConfiguration.imports} scanning is needed in the shaded jar) and
 * the bean whose method carries {@code @DistributedLock}.
 */
@Configuration(proxyBeanMethods = false)
@EnableAspectJAutoProxy(proxyTargetClass = true)
@ImportAutoConfiguration(RelockAutoConfiguration.class)
public class AnnotationContext {

    /** The server to use; set before the context starts. */
    static volatile RedisStandaloneConfiguration redis = new RedisStandaloneConfiguration();

    @Bean
    LettuceConnectionFactory redisConnectionFactory() {
        return new LettuceConnectionFactory(redis);
    }

    @Bean
    LockedWork lockedWork(RedisLockClient client) {
        return new LockedWork(client);
    }
}
