package io.github.relock.spring.actuate;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.autoconfigure.RelockAutoConfiguration;

/**
 * Adds the {@link RelockEndpoint} when Spring Boot Actuator is present and the endpoint is enabled and
 * exposed ({@code management.endpoints.web.exposure.include=relock}).
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnAvailableEndpoint(RelockEndpoint.class)
public final class RelockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnBean(RedisLockClient.class)
    @ConditionalOnMissingBean
    RelockEndpoint relockEndpoint(RedisLockClient client) {
        return new RelockEndpoint(client);
    }
}
