package io.github.relock.spring.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.function.SingletonSupplier;

import io.github.relock.core.DistributedLockClient;
import io.github.relock.core.LockLostListener;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.LockKeyResolver;
import io.github.relock.spring.LockObserver;
import io.github.relock.spring.internal.DistributedLockAdvisor;
import io.github.relock.spring.internal.DistributedLockInterceptor;
import io.github.relock.spring.internal.LockDefinitionFactory;
import io.github.relock.spring.internal.LockDefinitionRegistry;
import io.github.relock.spring.internal.LockObservers;
import io.github.relock.spring.internal.LockedMethodProxyCheck;
import io.github.relock.spring.internal.LockedMethodScanner;
import io.github.relock.spring.internal.SelfInvocationReaction;
import io.github.relock.spring.internal.SpelLockKeyResolver;
import io.github.relock.spring.observation.ObservationLockObserver;
import io.micrometer.observation.ObservationRegistry;

/**
 * Auto-configures a {@link RedisLockClient} over the application's {@link RedisConnectionFactory} and
 * the {@code @DistributedLock} aspect. Every bean can be replaced by declaring one of the same type.
 *
 * <p>The factory is the one {@code relock.connection-factory} names, else the only or the {@code @Primary} one,
 * looked up when the client is created, so that one declared by a later auto-configuration is used too; when it
 * is ambiguous or missing, startup fails. {@code relock.enabled=false} turns locking off, and is the only way to:
 * whether on or off, the {@link LockedMethodScanner} checks every bean with annotated methods.
 *
 * <p>The client runs its own pub/sub subscription; it never registers on Boot's
 * {@code redisMessageListenerContainer}. It is closed with the context: renewals stop and the
 * subscription goes.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
public final class RelockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockedMethodScanner relockLockedMethodScanner(ApplicationContext context, Environment environment,
            ObjectProvider<LockDefinitionRegistry> definitions, ObjectProvider<RelockProperties> properties,
            ObjectProvider<LockedMethodProxyCheck> postProcessed) {
        boolean locking = LockingEnabled.isEnabled(environment);
        RelockProperties relock = properties.getIfAvailable();
        return new LockedMethodScanner(context, locking ? definitions.getObject() : null,
                relock == null ? List.of() : relock.getLocks().keySet(), postProcessed.getIfAvailable(),
                relock == null ? SelfInvocationReaction.WARN : relock.getSelfInvocation());
    }

    /** Everything that locks; absent with {@code relock.enabled=false}. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(LockingEnabled.class)
    @EnableConfigurationProperties(RelockProperties.class)
    static class LockingConfiguration {

        @Bean
        @ConditionalOnMissingBean(DistributedLockClient.class)
        RedisLockClient relockClient(ConfigurableListableBeanFactory beanFactory, RelockProperties properties,
                RelockPropertiesCheck checked, ObjectProvider<LockLostListener> lockLostListeners) {
            RedisConnectionFactory connectionFactory = LockConnectionFactory.choose(beanFactory,
                    properties.getConnectionFactory(), "relockClient");
            RedisLockClient.Builder builder = RedisLockClient.builder(connectionFactory)
                    .keyPrefix(properties.getKeyPrefix())
                    .watchdogTimeout(properties.getWatchdogTimeout())
                    .fencingTokenRetention(properties.getFencingTokenRetention());
            String clientName = properties.effectiveClientName();
            if (clientName != null) {
                builder.clientId(clientName);
            }
            builder.minReplicas(properties.getMinReplicas());
            if (properties.getMinReplicas() > 0) {
                // known only now that the factory is: the WAIT must end before the driver gives up on it
                CommandTimeout.of(connectionFactory)
                        .ifPresent(timeout -> RelockPropertiesCheck.checkReplicaAckTimeoutBelow(properties, timeout));
            }
            if (properties.getReplicaAckTimeout() != null) {
                builder.replicaAckTimeout(properties.getReplicaAckTimeout());
            }
            lockLostListeners.orderedStream().forEach(builder::lockLostListener);
            return builder.build(); // AutoCloseable: the context closes it
        }

        /** Fails startup on an invalid relock.* value, before the client or any definition uses it. */
        @Bean
        RelockPropertiesCheck relockPropertiesCheck(RelockProperties properties) {
            return new RelockPropertiesCheck(properties);
        }

        /** Waits for held locks as long as Boot lets each shutdown phase take (30s unless set). */
        @Bean
        RelockClientLifecycle relockClientLifecycle(DistributedLockClient relockClient, Environment environment) {
            Duration releaseWait = Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase",
                    Duration.class).orElse(Duration.ofSeconds(30));
            return new RelockClientLifecycle(relockClient, releaseWait);
        }

        @Bean
        @ConditionalOnMissingBean
        LockKeyResolver relockKeyResolver(BeanFactory beanFactory) {
            return new SpelLockKeyResolver(new BeanFactoryResolver(beanFactory));
        }

        @Bean
        @ConditionalOnMissingBean
        LockDefinitionRegistry relockLockDefinitions(RelockProperties properties, RelockPropertiesCheck checked,
                Environment environment, LockKeyResolver keyResolver) {
            return new LockDefinitionRegistry(new LockDefinitionFactory(environment, properties, keyResolver));
        }

        /** Chooses the one LockFailureHandler at startup; two without a @Primary fail it. */
        @Bean
        LockFailureHandlerChoice relockLockFailureHandlerChoice(ConfigurableListableBeanFactory beanFactory) {
            return new LockFailureHandlerChoice(beanFactory);
        }

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static LockedMethodProxyCheck relockLockedMethodProxyCheck() {
            return new LockedMethodProxyCheck();
        }

        /** Static and lazy in what it needs: advisors are created before most beans exist. */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static DistributedLockAdvisor distributedLockAdvisor(Environment environment,
                ObjectProvider<DistributedLockClient> client, ObjectProvider<LockDefinitionRegistry> definitions,
                ObjectProvider<LockFailureHandlerChoice> failureHandler, ObjectProvider<LockObserver> observer) {
            SingletonSupplier<LockFailureHandlerChoice> handler = SingletonSupplier.of(failureHandler::getObject);
            SingletonSupplier<LockObserver> lockObserver =
                    SingletonSupplier.of(() -> LockObservers.of(observer.orderedStream().toList()));
            DistributedLockInterceptor interceptor = new DistributedLockInterceptor(SingletonSupplier.of(client::getObject),
                    SingletonSupplier.of(definitions::getObject), () -> handler.obtain().get(), lockObserver::obtain);
            // read directly: creating the properties bean this early would keep it from some post-processors
            int order = Binder.get(environment).bind("relock.aspect-order", Integer.class)
                    .orElse(DistributedLockAdvisor.DEFAULT_ORDER);
            return new DistributedLockAdvisor(interceptor, order);
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.transaction.ConfigurableTransactionManager")
        static class TransactionGuardConfiguration {

            @Bean
            @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
            static LockLostTransactionGuardRegistrar relockLockLostTransactionGuard() {
                return new LockLostTransactionGuardRegistrar();
            }
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(ObservationRegistry.class)
        static class ObservationConfiguration {

            @Bean
            @ConditionalOnMissingBean
            LockObserver relockLockObserver(ObjectProvider<ObservationRegistry> registry) {
                return new ObservationLockObserver(SingletonSupplier.of(() -> registry.getIfUnique(() -> ObservationRegistry.NOOP)));
            }
        }
    }
}
