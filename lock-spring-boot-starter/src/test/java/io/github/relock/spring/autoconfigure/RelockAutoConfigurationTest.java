package io.github.relock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.aop.Advisor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.LockKeyResolver;
import io.github.relock.spring.LockObserver;
import io.github.relock.spring.RelockContexts;
import io.github.relock.spring.internal.DistributedLockAdvisor;
import io.github.relock.spring.internal.LockDefinitionRegistry;
import io.github.relock.spring.internal.LockLostTransactionGuard;
import io.github.relock.spring.internal.LockedMethodScanner;
import io.github.relock.spring.internal.SpelLockKeyResolver;
import io.github.relock.spring.observation.ObservationLockObserver;
import io.github.relock.test.RedisServerExtension;
import io.micrometer.observation.ObservationRegistry;

/** When the auto-configuration applies, what it creates, and how it steps aside. */
@Timeout(60)
class RelockAutoConfigurationTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = RelockContexts.on(redis);

    @Test
    void failsWithoutARedisConnectionFactory() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RelockAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(new RelockFailureAnalyzer().analyze(context.getStartupFailure()).getAction())
                            .contains("RedisConnectionFactory", "relock.enabled=false");
                });
    }

    @Test
    void backsOffWhenDisabled() {
        runner.withPropertyValues("relock.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockClient.class)
                        .doesNotHaveBean(DistributedLockAdvisor.class).doesNotHaveBean(RelockProperties.class));
    }

    @Test
    void failsWhenTwoConnectionFactoriesCompete() {
        runner.withBean("second", RedisConnectionFactory.class, redis::newConnectionFactory)
                .withBean("third", RedisConnectionFactory.class, redis::newConnectionFactory)
                .run(context -> assertThat(context).hasFailed());
    }

    @Test
    void createsTheClientAndTheAspectWithDefaults() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RedisLockClient.class)
                    .hasSingleBean(DistributedLockAdvisor.class).hasSingleBean(LockDefinitionRegistry.class)
                    .hasSingleBean(LockedMethodScanner.class);
            assertThat(context.getBean(LockKeyResolver.class)).isInstanceOf(SpelLockKeyResolver.class);
            RedisLockClient client = context.getBean(RedisLockClient.class);
            assertThat(client.getKeyPrefix()).isEqualTo("lock:");
            assertThat(client.getWatchdogTimeout()).isEqualTo(Duration.ofSeconds(30));
            assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
                    .isEqualTo(DistributedLockAdvisor.DEFAULT_ORDER);
        });
    }

    @Test
    void appliesProperties() {
        runner.withPropertyValues("relock.key-prefix=app:lock:", "relock.watchdog-timeout=3s", "relock.client-id=node-1",
                "relock.aspect-order=42", "relock.min-replicas=1", "relock.replica-ack-timeout=250ms").run(context -> {
                    RedisLockClient client = context.getBean(RedisLockClient.class);
                    assertThat(client.getMinReplicas()).isEqualTo(1);
                    assertThat(client.getReplicaAckTimeout()).isEqualTo(Duration.ofMillis(250));
                    assertThat(client.getKeyPrefix()).isEqualTo("app:lock:");
                    assertThat(client.getWatchdogTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(client.getClientId()).startsWith("node-1-");
                    assertThat(client.getLock("x").getKey()).startsWith("app:lock:");
                    assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(42);
                });
    }

    @Test
    void usesTheApplicationsClient() {
        RedisLockClient own = RedisLockClient.builder(redis.connectionFactory()).keyPrefix("mine:").build();
        runner.withBean(RedisLockClient.class, () -> own)
                .run(context -> assertThat(context).getBean(RedisLockClient.class).isSameAs(own));
    }

    @Test
    void usesTheApplicationsKeyResolver() {
        LockKeyResolver own = new SpelLockKeyResolver(null);
        runner.withBean(LockKeyResolver.class, () -> own)
                .run(context -> assertThat(context).getBean(LockKeyResolver.class).isSameAs(own));
    }

    @Test
    void usesTheApplicationsAdvisor() {
        runner.withBean("myLockAdvisor", DistributedLockAdvisor.class,
                () -> new DistributedLockAdvisor(null, 7)).run(context -> {
                    assertThat(context).hasSingleBean(DistributedLockAdvisor.class);
                    assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(7);
                    assertThat(context.getBeansOfType(Advisor.class)).containsOnlyKeys("myLockAdvisor");
                });
    }

    @Test
    void closesTheClientWithTheContext() {
        RedisLockClient[] client = new RedisLockClient[1];
        runner.run(context -> {
            client[0] = context.getBean(RedisLockClient.class);
            assertThat(client[0].isClosed()).isFalse();
        });
        assertThat(client[0].isClosed()).isTrue();
    }

    @Test
    void closesTheClientBeforeTheConnectionFactoryStops() {
        // stands in for LettuceConnectionFactory, a SmartLifecycle in phase 0 that closes its connections on stop
        Boolean[] closedWhenFactoryStopped = new Boolean[1];
        runner.withBean("factoryPhase", org.springframework.context.SmartLifecycle.class, () -> new org.springframework.context.SmartLifecycle() {
            private boolean running;
            private RedisLockClient client;

            @Override
            public void start() {
                running = true;
            }

            @Override
            public void stop() {
                closedWhenFactoryStopped[0] = client.isClosed();
                running = false;
            }

            @Override
            public boolean isRunning() {
                return running;
            }

            @Override
            public int getPhase() {
                return 0;
            }

            @org.springframework.beans.factory.annotation.Autowired
            void setClient(RedisLockClient client) {
                this.client = client;
            }
        }).run(context -> assertThat(context).hasNotFailed());
        assertThat(closedWhenFactoryStopped[0]).isTrue();
    }

    @Test
    void guardsEveryTransactionManagerAgainstCommittingUnderALostLock() {
        runner.withBean(DataSourceTransactionManager.class,
                () -> new DataSourceTransactionManager(new DriverManagerDataSource("jdbc:h2:mem:guard")))
                .run(context -> assertThat(context.getBean(DataSourceTransactionManager.class)
                        .getTransactionExecutionListeners()).singleElement().isInstanceOf(LockLostTransactionGuard.class));
    }

    @Test
    void observesThroughMicrometerWhenPresent() {
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .run(context -> assertThat(context).getBean(LockObserver.class).isInstanceOf(ObservationLockObserver.class));
    }

    @Test
    void runsWithoutMicrometer() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.observation"))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(DistributedLockAdvisor.class)
                        .doesNotHaveBean(LockObserver.class));
    }

    @Test
    void usesTheApplicationsLockObserver() {
        runner.withBean(LockObserver.class, () -> LockObserver.NOOP)
                .run(context -> assertThat(context).getBean(LockObserver.class).isSameAs(LockObserver.NOOP));
    }
}
