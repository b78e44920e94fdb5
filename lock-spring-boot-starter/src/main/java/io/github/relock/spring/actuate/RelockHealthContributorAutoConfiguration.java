package io.github.relock.spring.actuate;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.spring.autoconfigure.RelockAutoConfiguration;

/**
 * Adds the {@code relock} health contributor ({@link RelockHealthIndicator}) when Spring Boot's health
 * support is present; {@code management.health.relock.enabled=false} turns it off.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
public final class RelockHealthContributorAutoConfiguration {

    /** Nested: its condition's class lives in spring-boot-health, which the outer check ensures is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("relock")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnBean(DistributedLockClient.class)
        @ConditionalOnMissingBean(name = "relockHealthIndicator")
        RelockHealthIndicator relockHealthIndicator(DistributedLockClient client) {
            return new RelockHealthIndicator(client);
        }
    }
}
