package io.github.relock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.LockedCounter;
import io.github.relock.spring.RelockContexts;
import io.github.relock.test.RedisServerExtension;

/** Which RedisConnectionFactory relock locks with when the application has several, or gets one late. */
@Timeout(60)
class ConnectionFactoryChoiceTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis).withBean("counter", LockedCounter.class);

    /** A factory for a Redis that nobody listens on: locking with it would fail every call. */
    private static RedisConnectionFactory nowhere() {
        return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1));
    }

    @Test
    void twoFactoriesAndNoChoiceFailStartupNamingThem() {
        runner.withBean("cacheRedis", RedisConnectionFactory.class, ConnectionFactoryChoiceTest::nowhere)
                .withBean("lockRedis", RedisConnectionFactory.class, redis::newConnectionFactory)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
                    assertThat(analysis.getDescription()).contains("cacheRedis", "lockRedis", "@Primary");
                    assertThat(analysis.getAction()).contains("relock.connection-factory", "@Primary");
                });
    }

    @Test
    void theNamedFactoryIsTheOneLockedWith() {
        runner.withBean("cacheRedis", RedisConnectionFactory.class, ConnectionFactoryChoiceTest::nowhere)
                .withBean("lockRedis", RedisConnectionFactory.class, redis::newConnectionFactory)
                .withPropertyValues("relock.connection-factory=lockRedis")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedisLockClient.class);
                    LockedCounter counter = context.getBean(LockedCounter.class);
                    assertThat(LockedCounter.overlapsOf(counter, 20)).as("calls inside at once").isZero();
                    assertThat(counter.calls()).isEqualTo(160);
                });
    }

    @Test
    void aPrimaryFactoryIsTheOneLockedWith() {
        runner.withBean("cacheRedis", RedisConnectionFactory.class, ConnectionFactoryChoiceTest::nowhere)
                .withBean("lockRedis", RedisConnectionFactory.class, redis::newConnectionFactory,
                        definition -> definition.setPrimary(true))
                .run(context -> assertThat(LockedCounter.overlapsOf(context.getBean(LockedCounter.class), 5)).isZero());
    }

    @Test
    void anUnknownNameFailsStartupNamingTheCandidates() {
        runner.withBean("cacheRedis", RedisConnectionFactory.class, ConnectionFactoryChoiceTest::nowhere)
                .withBean("lockRedis", RedisConnectionFactory.class, redis::newConnectionFactory)
                .withPropertyValues("relock.connection-factory=lockRedsi")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new RelockFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
                    assertThat(analysis.getDescription()).contains("'lockRedsi'", "cacheRedis", "lockRedis");
                    assertThat(analysis.getAction()).contains("relock.connection-factory");
                });
    }

    @Test
    void aFactoryFromAnAutoConfigurationAfterRelocksIsLockedWith() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RelockAutoConfiguration.class,
                        LateRedisAutoConfiguration.class))
                .withBean("counter", LockedCounter.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedisLockClient.class);
                    assertThat(LockedCounter.overlapsOf(context.getBean(LockedCounter.class), 20))
                            .as("calls inside at once").isZero();
                });
    }

    /** Supplies the only factory, evaluated after relock's auto-configuration. */
    @AutoConfiguration(after = RelockAutoConfiguration.class)
    static class LateRedisAutoConfiguration {

        @Bean
        RedisConnectionFactory lateRedis() {
            return redis.newConnectionFactory();
        }
    }
}
