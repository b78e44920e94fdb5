package io.github.relock.spring.actuate;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.spring.autoconfigure.RelockAutoConfiguration;

/**
 * Adds the {@link RelockEndpoint} when Spring Boot Actuator is present and the endpoint is enabled and
 * exposed ({@code management.endpoints.web.exposure.include=relock}).
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass(name = { "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
        "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint" })
public final class RelockEndpointAutoConfiguration {

    /** Nested: its condition's class lives in actuator-autoconfigure, which the outer check ensures is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(RelockEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnBean(DistributedLockClient.class)
        @ConditionalOnMissingBean
        RelockEndpoint relockEndpoint(DistributedLockClient client) {
            return new RelockEndpoint(client);
        }
    }
}
