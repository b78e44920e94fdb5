package io.github.relock.chaos;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import io.github.relock.core.LockLostListener;
import io.github.relock.core.RedisLockClient;

/**
 * The small application each client JVM runs next to its programmatic client: the relock starter's
 * auto-configuration over the JVM's (flaky) connection factory, its lock-lost listener, and the annotated
 * bean. No web server.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class ChaosApp {

    @Bean
    LockLostListener chaosLockLostListener(Environment environment) {
        return new FaultyListener(environment.getRequiredProperty("chaos.jvm", Integer.class));
    }

    @Bean
    AnnotatedWork annotatedWork(Environment environment, RedisLockClient client, ObjectProvider<AnnotatedWork> self) {
        return new AnnotatedWork(environment.getRequiredProperty("chaos.jvm", Integer.class), client, self);
    }
}
