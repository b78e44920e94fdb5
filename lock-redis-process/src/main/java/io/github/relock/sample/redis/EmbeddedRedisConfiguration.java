package io.github.relock.sample.redis;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Makes sure a Redis answers at {@code spring.data.redis.host:port} before anything connects to it:
 * every {@link RedisConnectionFactory} bean depends on the {@link EmbeddedRedisServer} bean, which either
 * finds a Redis there or starts one. Being a dependency also orders shutdown: the lock client and the
 * connection factory close first, then the embedded server stops.
 *
 * <p>{@code sample.embedded-redis.enabled=false} switches this off. Both samples import it
 * ({@code @Import(EmbeddedRedisConfiguration.class)}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.embedded-redis.enabled", matchIfMissing = true)
@EnableConfigurationProperties(EmbeddedRedisProperties.class)
public class EmbeddedRedisConfiguration {

    /** Name of the {@link EmbeddedRedisServer} bean. */
    public static final String BEAN_NAME = "sampleRedisServer";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisConfiguration.class);

    @Bean(BEAN_NAME)
    EmbeddedRedisServer sampleRedisServer(DataRedisConnectionDetails connection, EmbeddedRedisProperties properties) {
        DataRedisConnectionDetails.Standalone standalone = connection.getStandalone();
        if (connection.getSentinel() != null || connection.getCluster() != null || connection.getMasterReplica() != null
                || connection.getSslBundle() != null || standalone == null) {
            log.info("Redis Sentinel, Cluster, master/replica or TLS is configured: no embedded redis-server is started");
            return EmbeddedRedisServer.notUsed();
        }
        return EmbeddedRedisServer.startIfNoneAnswers(standalone.getHost(), standalone.getPort(),
                connection.getPassword(), properties.getStartTimeout());
    }

    /** Every Redis connection factory waits for {@link #sampleRedisServer}. */
    @Bean
    static BeanFactoryPostProcessor redisConnectionFactoriesDependOnEmbeddedRedis() {
        return beanFactory -> {
            for (String name : beanFactory.getBeanNamesForType(RedisConnectionFactory.class, true, false)) {
                BeanDefinition definition = beanFactory.getBeanDefinition(name);
                Set<String> dependsOn = new LinkedHashSet<>();
                if (definition.getDependsOn() != null) {
                    dependsOn.addAll(Arrays.asList(definition.getDependsOn()));
                }
                dependsOn.add(BEAN_NAME);
                definition.setDependsOn(dependsOn.toArray(String[]::new));
            }
        };
    }
}
