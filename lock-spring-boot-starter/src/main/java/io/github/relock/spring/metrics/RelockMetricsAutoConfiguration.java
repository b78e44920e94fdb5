package io.github.relock.spring.metrics;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.spring.autoconfigure.RelockAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Adds the {@link MeterLockObserver} when the application has a {@link MeterRegistry} (Boot's actuator makes
 * one): gauges of held and waiting calls and counters of not-acquired and lost locks, per lock name.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
@ConditionalOnSingleCandidate(MeterRegistry.class)
@ConditionalOnBean(DistributedLockClient.class)
public final class RelockMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MeterLockObserver relockMeterLockObserver(MeterRegistry registry, DistributedLockClient client) {
        return new MeterLockObserver(registry, client); // AutoCloseable: the context closes it
    }
}
