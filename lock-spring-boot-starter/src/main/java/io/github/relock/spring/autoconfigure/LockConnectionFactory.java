package io.github.relock.spring.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.relock.spring.InvalidLockConfigurationException;

/**
 * Picks the {@link RedisConnectionFactory} that relock locks with: the bean {@code relock.connection-factory}
 * names, else the only one, else the {@code @Primary} one. Asked when the lock client is created, once every
 * bean definition is known, so that a factory declared by an auto-configuration that runs after relock's counts
 * too. Anything else fails startup naming the factories found: relock never guesses which Redis to lock on.
 */
final class LockConnectionFactory {

    private LockConnectionFactory() {
    }

    /**
     * @param name    {@code relock.connection-factory}, or null
     * @param user    the name of the bean that needs the factory, recorded as depending on it
     * @throws InvalidLockConfigurationException naming the candidates and the property to set
     */
    static RedisConnectionFactory choose(ConfigurableListableBeanFactory beanFactory, @Nullable String name, String user) {
        List<String> candidates = List.of(BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory,
                RedisConnectionFactory.class));
        if (name != null && !name.isBlank()) {
            if (!candidates.contains(name.trim())) {
                throw new InvalidLockConfigurationException("relock.connection-factory is '" + name + "', but there is no "
                        + "RedisConnectionFactory bean of that name. RedisConnectionFactory beans: " + candidates + ".",
                        candidates.isEmpty() ? "Declare the RedisConnectionFactory bean to lock with, or remove "
                                + "relock.connection-factory."
                                : "Set relock.connection-factory to one of " + candidates + ".");
            }
            beanFactory.registerDependentBean(name.trim(), user); // closed before the factory it locks with
            return beanFactory.getBean(name.trim(), RedisConnectionFactory.class);
        }
        if (candidates.isEmpty()) {
            throw new InvalidLockConfigurationException("relock has no RedisConnectionFactory to lock with: the context "
                    + "has no RedisConnectionFactory bean, so @DistributedLock methods could not be locked.",
                    "Add spring-boot-starter-data-redis and set spring.data.redis.*, or declare a RedisConnectionFactory "
                            + "bean; or set relock.enabled=false to run @DistributedLock methods without their locks.");
        }
        RedisConnectionFactory chosen = beanFactory.getBeanProvider(RedisConnectionFactory.class).getIfUnique();
        if (chosen == null) {
            throw new InvalidLockConfigurationException("relock found " + candidates.size() + " RedisConnectionFactory "
                    + "beans " + candidates + " and none of them is @Primary, so it cannot tell which Redis to lock on.",
                    "Set relock.connection-factory to the name of the one to lock with (for example "
                            + "relock.connection-factory=" + candidates.get(candidates.size() - 1)
                            + "), or mark that bean @Primary.");
        }
        for (String candidate : candidates) {
            if (beanFactory.getBean(candidate) == chosen) {
                beanFactory.registerDependentBean(candidate, user);
            }
        }
        return chosen;
    }
}
