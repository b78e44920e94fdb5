package io.github.relock.spring;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.relock.core.LockRedisKeys;
import io.github.relock.core.RedisLockClient;
import io.github.relock.spring.autoconfigure.RelockAutoConfiguration;
import io.github.relock.test.RedisServerExtension;

/** Application contexts the way an application gets them: Boot's Redis and AOP auto-configuration, then ours. */
public final class RelockContexts {

    private RelockContexts() {
    }

    /** Boot's Redis auto-configuration pointed at the test's real redis-server, AOP, and relock. */
    public static ApplicationContextRunner on(RedisServerExtension redis) {
        LettuceConnectionFactory shared = (LettuceConnectionFactory) redis.connectionFactory();
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
                        RelockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + shared.getHostName(),
                        "spring.data.redis.port=" + shared.getPort());
    }

    /** Where the context's {@link RedisLockClient} keeps the lock called {@code name}. */
    public static LockRedisKeys redisKeys(ApplicationContext context, String name) {
        return context.getBean(RedisLockClient.class).redisKeys(name);
    }
}
